/**
 * The LDAP listeners: the LDAP port and, with a certificate and an LDAPS port, the LDAPS port,
 * whose sockets are wrapped in TLS at once. Both feed the same connections (connection.ts), so
 * a handshake in progress is a connection like any other: the idle timeout covers it and a stop
 * closes it. A cap on connections per listener, and a graceful stop: no new connections,
 * operations in flight finish, any other is answered unavailable (52), clients get a notice of
 * disconnection, then the database closes.
 *
 * With `serve --threads`, every thread runs these listeners on its own listening sockets, bound to
 * the same ports with SO_REUSEPORT (listen-socket.ts: the kernel spreads new connections over
 * them), counts connections in shared memory so the cap holds for the whole server, and numbers
 * its connections apart from the other threads'.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ResultCode, encodeNoticeOfDisconnection } from '../../protocol/index.js';
import { AddressCounts, clientAddress } from './address-counts.js';
import type { Limits } from '../config.js';
import type { ServerContext } from '../context.js';
import { Connection } from './connection.js';
import { COUNTER } from '../threads/counters.js';
import { listenOn } from './listen-socket.js';
import { MemoryReclaimer } from './memory-reclaim.js';
import { SLOT } from '../monitor/stats.js';

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
interface ThreadShare {
  /** Listen on these descriptors (this thread's own, of sockets bound already) instead of binding host:port. */
  readonly sockets?: ListeningSockets;
  /** This thread's connections are numbered thread + 1, thread + 1 + threads, ... */
  readonly thread: number;
  readonly threads: number;
  /** AddressCounts' table, shared by every thread (a lone server makes its own). */
  readonly addressCounts?: SharedArrayBuffer;
}

/** A lone server: numbering 1, 2, 3, ... */
const SOLE_THREAD: ThreadShare = { thread: 0, threads: 1 };

/** Dead peers are found by TCP keepalive probes after this long without traffic. */
const KEEPALIVE_MS = 60_000;
/** Refusals past the caps are told why (a notice of disconnection) before the socket closes. */
const PER_ADDRESS_REFUSAL = 'too many connections from this address (--max-connections-per-address)';

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

/** How a new connection is let in: as any, on the admin's reserve, or not at all. */
type Admission = 'open' | 'reserve' | 'refused';

/**
 * Takes a place under --max-connections (over all threads): past max minus the reserve
 * (--reserved-connections), the connection is let in on the reserve (it must bind as the admin
 * first, connection.ts); past max, refused.
 */
function admit(counts: Int32Array, listener: number, limits: Limits): Admission {
  const before = Atomics.add(counts, listener, 1);
  const reserved = Math.min(limits.reservedConnections, limits.maxConnections - 1); // never every place
  if (before < limits.maxConnections - reserved) return 'open';
  if (before < limits.maxConnections) return 'reserve';
  Atomics.sub(counts, listener, 1);
  return 'refused';
}

/** Refused connections at most being told why at once; beyond, they are closed without a word (their descriptors count). */
const MAX_TELLING = 64;

/** Closes refused connections: with a notice of disconnection saying why (LDAP port, up to MAX_TELLING at a time), else at once. */
function refuser(): (socket: net.Socket, message: string, tell: boolean) => void {
  let telling = 0;
  return (socket, message, tell) => {
    if (!tell || telling >= MAX_TELLING) {
      socket.destroy();
      return;
    }
    telling += 1;
    socket.once('close', () => { telling -= 1; });
    socket.on('error', () => socket.destroy());
    socket.end(encodeNoticeOfDisconnection({ code: ResultCode.busy, message }));
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

/** ldap://127.0.0.1:1389/, as slapd writes a listener's labeledURI. */
export function listenerUrl(scheme: 'ldap' | 'ldaps', address: net.AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}/`;
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
  const addresses = new AddressCounts(share.addressCounts ?? AddressCounts.allocate(context.config.limits.maxConnections));
  const reclaimer = new MemoryReclaimer(context.log);
  const refuse = refuser();
  const { limits } = context.config;
  const { stats } = context.monitor;
  /** Each listener's URL once bound (cn=Monitor's monitorConnectionListener). */
  const urls: string[] = [];
  const open = (socket: net.Socket, listener: number, wrap: (socket: net.Socket) => net.Socket) => {
    const admission = admit(context.counters, listener, limits);
    if (admission === 'refused') {
      stats.add(SLOT.connectionsRefusedCap);
      socket.destroy();
      return;
    }
    const address = clientAddress(socket.remoteAddress);
    if (!addresses.admit(address, limits.maxConnectionsPerAddress)) {
      stats.add(SLOT.connectionsRefusedAddress);
      Atomics.sub(context.counters, listener, 1);
      context.log.info({ remote: address }, PER_ADDRESS_REFUSAL);
      refuse(socket, PER_ADDRESS_REFUSAL, listener === LDAP); // LDAPS clients expect a TLS handshake, not a notice
      return;
    }
    socket.setKeepAlive(true, KEEPALIVE_MS);
    const transport = {
      secure: listener === LDAPS, reserve: admission === 'reserve', tcp: socket, listener: urls[listener] ?? '', ...(secureContext && { startTls: secureContext }),
    };
    stats.add(SLOT.connectionsAccepted);
    stats.add(SLOT.connectionsCurrent);
    const connection = new Connection(wrap(socket), context, (nextId += share.threads), transport);
    connections.add(connection);
    void connection.closed.then(() => {
      stats.add(SLOT.connectionsCurrent, -1);
      connections.delete(connection);
      addresses.release(address);
      Atomics.sub(context.counters, listener, 1);
      reclaimer.released();
    });
  };
  const plain = net.createServer((socket) => open(socket, LDAP, (raw) => raw));
  const address = await bindListener(plain, context, context.config.port, share.sockets?.ldap);
  urls[LDAP] = listenerUrl('ldap', address);
  context.monitor.listeners.push(urls[LDAP]);
  let ldaps: { server: net.Server; port: number } | undefined;
  if (secureContext && certificate?.ldapsPort !== undefined) {
    const server = net.createServer((socket) => open(socket, LDAPS, (raw) => new tls.TLSSocket(raw, { isServer: true, secureContext })));
    const bound = await bindListener(server, context, certificate.ldapsPort, share.sockets?.ldaps).catch(async (error: unknown) => {
      await closeListener(plain);
      throw error;
    });
    ldaps = { server, port: bound.port };
    urls[LDAPS] = listenerUrl('ldaps', bound);
    context.monitor.listeners.push(urls[LDAPS]);
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
      reclaimer.stop();
    },
  };
}
