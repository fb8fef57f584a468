/**
 * The LDAP listener: a plain `net.Server` whose connections are ours (connection.ts), a cap on
 * connections, and a graceful stop: no new connections, in-flight operations finish, clients get
 * a notice of disconnection, then the database closes.
 */
import net from 'node:net';
import { ResultCode } from '../store/index.js';
import type { ServerContext } from './context.js';
import { Connection } from './connection.js';

export interface RunningServer {
  readonly port: number;
  readonly host: string;
  /** Stops accepting, lets operations in flight finish (up to `graceMillis`), closes every connection. */
  stop(graceMillis?: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drain(connections: ReadonlySet<Connection>, graceMillis: number): Promise<void> {
  const deadline = Date.now() + graceMillis;
  while ([...connections].some((connection) => !connection.idle) && Date.now() < deadline) await sleep(20);
}

export async function listen(context: ServerContext): Promise<RunningServer> {
  const { host, port, limits } = context.config;
  const connections = new Set<Connection>();
  let nextId = 0;
  const server = net.createServer((socket) => {
    const connection = new Connection(socket, context, (nextId += 1));
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
  });
  server.maxConnections = limits.maxConnections;
  server.on('error', (error) => context.log.error({ err: error }, 'listener error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    host: address.address,
    async stop(graceMillis = 10_000) {
      const closed = new Promise((resolve) => server.close(resolve));
      await drain(connections, graceMillis);
      for (const connection of connections) connection.disconnect(ResultCode.unavailable, 'server shutting down');
      await closed;
    },
  };
}
