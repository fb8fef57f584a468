/**
 * The LDAP listeners: the LDAP port and, with a certificate and an LDAPS port, the LDAPS port,
 * whose sockets are wrapped in TLS at once. Both feed the same connections (connection.ts), so
 * a handshake in progress is a connection like any other: the idle timeout covers it and a stop
 * closes it. A cap on connections per listener, and a graceful stop: no new connections,
 * operations in flight finish, any other is answered unavailable (52), clients get a notice of
 * disconnection, then the database closes.
 *
 * With `serve --threads`, every thread runs these listeners on its own descriptor of the same
 * listening sockets (the kernel hands each new connection to one of them), counts connections
 * in shared memory so the cap holds for the whole server, and numbers its connections apart
 * from the other threads'.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ResultCode } from '../store/index.js';
import type { ServerContext } from './context.js';
import { Connection } from './connection.js';
import { COUNTER } from './counters.js';
import { listenOn } from './listen-socket.js';

export interface RunningServer {
  readonly port: number;
  readonly host: string;
  /** The LDAPS port, when one was asked for. */
  readonly ldapsPort?: number;
  /** Stops accepting, lets operations in flight finish (up to `graceMillis`), closes every connection. */
  stop(graceMillis?: number): Promise<void>;
}

export interface ListeningSockets {
  readonly ldap?: number;
  readonly ldaps?: number;
}

/** How this thread shares the listeners with others (`serve --threads`). */
export interface ThreadShare {
  /** Listen on these descriptors (this thread's own, of sockets bound already) instead of binding host:port. */
  readonly sockets?: ListeningSockets;
  /** This thread's connections are numbered thread + 1, thread + 1 + threads, ... */
  readonly thread: number;
  readonly threads: number;
}

/** A lone server: numbering 1, 2, 3, ... */
const SOLE_THREAD: ThreadShare = { thread: 0, threads: 1 };

const LDAP = COUNTER.ldapConnections;
const LDAPS = COUNTER.ldapsConnections;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drain(connections: ReadonlySet<Connection>, graceMillis: number): Promise<void> {
  const deadline = Date.now() + graceMillis;
  while ([...connections].some((connection) => !connection.idle) && Date.now() < deadline) await sleep(20);
}

/** Listens on host:port, or on a descriptor another thread opened; resolves with the address bound. */
async function bindListener(server: net.Server, context: ServerContext, port: number, fd: number | undefined): Promise<net.AddressInfo> {
  server.on('error', (error) => context.log.error({ err: error }, 'listener error'));
  await listenOn(server, fd === undefined ? { port, host: context.config.host } : { fd });
  return server.address() as net.AddressInfo;
}

/** Takes a place under --max-connections (over all threads), or refuses. */
function admit(counts: Int32Array, listener: number, max: number): boolean {
  if (Atomics.add(counts, listener, 1) < max) return true;
  Atomics.sub(counts, listener, 1);
  return false;
}

function closeListener(server: net.Server): Promise<unknown> {
  return new Promise((resolve) => server.close(resolve));
}

export async function listen(context: ServerContext, share: ThreadShare = SOLE_THREAD): Promise<RunningServer> {
  const connections = new Set<Connection>();
  let nextId = share.thread + 1 - share.threads;
  const certificate = context.config.tls;
  /** Loaded once, for StartTLS and LDAPS. */
  const secureContext = certificate && tls.createSecureContext({ cert: certificate.cert, key: certificate.key });
  const open = (socket: net.Socket, listener: number, wrap: (socket: net.Socket) => net.Socket) => {
    if (!admit(context.counters, listener, context.config.limits.maxConnections)) {
      socket.destroy();
      return;
    }
    const connection = new Connection(wrap(socket), context, (nextId += share.threads), { secure: listener === LDAPS, ...(secureContext && { startTls: secureContext }) });
    connections.add(connection);
    void connection.closed.then(() => {
      connections.delete(connection);
      Atomics.sub(context.counters, listener, 1);
    });
  };
  const plain = net.createServer((socket) => open(socket, LDAP, (raw) => raw));
  const address = await bindListener(plain, context, context.config.port, share.sockets?.ldap);
  let ldaps: { server: net.Server; port: number } | undefined;
  if (secureContext && certificate?.ldapsPort !== undefined) {
    const server = net.createServer((socket) => open(socket, LDAPS, (raw) => new tls.TLSSocket(raw, { isServer: true, secureContext })));
    const bound = await bindListener(server, context, certificate.ldapsPort, share.sockets?.ldaps).catch(async (error: unknown) => {
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
      for (const connection of connections) connection.refuseNewOperations();
      await drain(connections, graceMillis);
      for (const connection of connections) connection.disconnect(ResultCode.unavailable, 'server shutting down');
      await closed;
    },
  };
}
