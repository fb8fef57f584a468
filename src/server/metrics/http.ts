/**
 * The metrics endpoint (`serve --metrics-port`), plain HTTP on --metrics-host (loopback by
 * default): GET /metrics (Prometheus text format), /healthz (the process serves HTTP: 200),
 * /readyz (200 when the database is open, a node's copy is not stale (docs/scale-out.md) and
 * every serving thread answers over the threads' channel within a second; 503 saying what is
 * missing otherwise). It runs on the main thread.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DirectoryStore } from '../../store/index.js';
import type { MonitorPeers } from '../monitor/peers.js';
import { ListenError } from '../errors.js';

export interface MetricsOptions {
  readonly port: number;
  readonly host: string;
}

export interface MetricsServer {
  readonly host: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** What /readyz asks. */
export interface Readiness {
  readonly store: DirectoryStore;
  readonly peers: MonitorPeers;
  readonly threads: number;
}

/** Why the server is not ready, or undefined when it is. */
export async function notReady({ store, peers, threads }: Readiness): Promise<string | undefined> {
  if (!store.isOpen) return 'the database is not open';
  const stale = store.staleReason();
  if (stale) return stale;
  const answered = await peers.ping();
  if (answered.length < threads) return `serving threads answered: ${answered.length} of ${threads}`;
  return undefined;
}

type Reply = { readonly status: number; readonly type: string; readonly body: string };
const TEXT = 'text/plain; charset=utf-8';

async function route(path: string, registry: Registry, readiness: Readiness): Promise<Reply> {
  switch (path) {
    case '/metrics': return { status: 200, type: registry.contentType, body: await registry.metrics() };
    case '/healthz': return { status: 200, type: TEXT, body: 'ok\n' };
    case '/readyz': {
      const problem = await notReady(readiness);
      return problem ? { status: 503, type: TEXT, body: `not ready: ${problem}\n` } : { status: 200, type: TEXT, body: 'ready\n' };
    }
    default: return { status: 404, type: TEXT, body: 'not found: try /metrics, /healthz or /readyz\n' };
  }
}

/** The path a request asks for; undefined when its target is no URL (`http://[/`). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://metrics').pathname;
  } catch {
    return undefined;
  }
}

export async function startMetricsServer(options: MetricsOptions, registry: Registry, readiness: Readiness, log: Logger): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = pathOf(request.url);
    if (path === undefined) {
      response.writeHead(400, { 'content-type': TEXT }).end('bad request target\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': TEXT, allow: 'GET, HEAD' }).end('GET only\n');
      return;
    }
    route(path, registry, readiness).then(
      ({ status, type, body }) => response.writeHead(status, { 'content-type': type }).end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        log.error({ err: error, path }, 'metrics request failed');
        response.writeHead(500, { 'content-type': TEXT }).end('internal error\n');
      },
    );
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(ListenError.of(error, options.host, options.port) ?? error));
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log.error({ err: error }, 'metrics server error'));
  const address = server.address() as AddressInfo;
  return {
    host: address.address, port: address.port,
    stop: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
