/**
 * The LDAP listeners: the LDAP port and, with a certificate and an LDAPS port, the LDAPS port,
 * whose sockets are wrapped in TLS at once. Both feed the same connections (connection.ts), so
 * a handshake in progress is a connection like any other: the idle timeout covers it and a stop
 * closes it. A cap on connections per listener, and a graceful stop: no new connections,
 * in-flight operations finish, clients get a notice of disconnection, then the database closes.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ResultCode } from '../store/index.js';
import type { ServerContext } from './context.js';
import { Connection } from './connection.js';

export interface RunningServer {
  readonly port: number;
  readonly host: string;
  /** The LDAPS port, when one was asked for. */
  readonly ldapsPort?: number;
  /** Stops accepting, lets operations in flight finish (up to `graceMillis`), closes every connection. */
  stop(graceMillis?: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drain(connections: ReadonlySet<Connection>, graceMillis: number): Promise<void> {
  const deadline = Date.now() + graceMillis;
  while ([...connections].some((connection) => !connection.idle) && Date.now() < deadline) await sleep(20);
}

/** Listens on host:port; resolves with the address bound. */
async function bindListener(server: net.Server, context: ServerContext, port: number): Promise<net.AddressInfo> {
  server.maxConnections = context.config.limits.maxConnections;
  server.on('error', (error) => context.log.error({ err: error }, 'listener error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, context.config.host, () => { server.off('error', reject); resolve(); });
  });
  return server.address() as net.AddressInfo;
}

function closeListener(server: net.Server): Promise<unknown> {
  return new Promise((resolve) => server.close(resolve));
}

export async function listen(context: ServerContext): Promise<RunningServer> {
  const connections = new Set<Connection>();
  let nextId = 0;
  const certificate = context.config.tls;
  /** Loaded once, for StartTLS and LDAPS. */
  const secureContext = certificate && tls.createSecureContext({ cert: certificate.cert, key: certificate.key });
  const open = (socket: net.Socket, secure: boolean) => {
    const connection = new Connection(socket, context, (nextId += 1), { secure, ...(secureContext && { startTls: secureContext }) });
    connections.add(connection);
    void connection.closed.then(() => connections.delete(connection));
  };
  const plain = net.createServer((socket) => open(socket, false));
  const address = await bindListener(plain, context, context.config.port);
  let ldaps: { server: net.Server; port: number } | undefined;
  if (secureContext && certificate?.ldapsPort !== undefined) {
    const server = net.createServer((socket) => open(new tls.TLSSocket(socket, { isServer: true, secureContext }), true));
    const bound = await bindListener(server, context, certificate.ldapsPort).catch(async (error: unknown) => {
      await closeListener(plain);
      throw error;
    });
    ldaps = { server, port: bound.port };
  }
  return {
    port: address.port,
    host: address.address,
    ...(ldaps && { ldapsPort: ldaps.port }),
    async stop(graceMillis = 10_000) {
      const closed = Promise.all([closeListener(plain), ldaps && closeListener(ldaps.server)]);
      await drain(connections, graceMillis);
      for (const connection of connections) connection.disconnect(ResultCode.unavailable, 'server shutting down');
      await closed;
    },
  };
}
