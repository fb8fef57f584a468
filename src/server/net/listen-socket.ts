/**
 * The listening sockets of `serve --threads`: one socket per serving thread, all bound to the same
 * port with SO_REUSEPORT (native/fd-dup), so the kernel spreads new connections over the threads.
 * (Threads accepting on one shared socket do not share: every thread is woken for each new
 * connection and the first takes the whole burst; measured, all 32 connections of a load run
 * landed on one of two threads.) The sockets are bound once every thread is ready to take its
 * own (src/server/threads/supervisor.ts), all at once, so the connections of the first instant
 * are spread too; until then the port refuses connections.
 * Without the addon built, threads are not available and serve runs one.
 */
import { lookup } from 'node:dns/promises';
import { closeSync } from 'node:fs';
import net from 'node:net';
import { loadAddon } from '../../native-addon.js';
import { ListenError } from '../errors.js';

interface FdDup {
  /** A TCP socket bound with SO_REUSEPORT and listening: [descriptor, port bound]. */
  listenReusePort(address: string, port: number): [number, number];
}

const addon = loadAddon<FdDup>('fd-dup', 'fd_dup');

/** Why threads cannot share a listener here, or undefined when they can. */
export function sharingUnavailable(): string | undefined {
  return addon ? undefined : 'the native/fd-dup addon is not built (npm ci builds it; it needs a C compiler)';
}

/** Starts `server` listening (on host:port, or on a descriptor); rejects with the listen error (a ListenError where the operator can act). */
export function listenOn(server: net.Server, where: { readonly host: string; readonly port: number } | { readonly fd: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(('port' in where && ListenError.of(error, where.host, where.port)) || error);
    server.once('error', failed);
    server.listen(where, () => { server.off('error', failed); resolve(); });
  });
}

export function releaseSocket(fd: number): void {
  closeSync(fd);
}

/** Sockets bound to one port, one for each thread to accept on, and where they are bound. */
export interface ReusePortSockets {
  readonly fds: readonly number[];
  readonly address: net.AddressInfo;
}

/**
 * `count` listening sockets on host:port (port 0: a free port, the same for all), SO_REUSEPORT
 * set on each; `host` is resolved as net.Server.listen resolves it.
 */
export async function reusePortSockets(host: string, port: number, count: number): Promise<ReusePortSockets> {
  if (!addon) throw new Error(sharingUnavailable());
  const { address, family } = net.isIP(host) ? { address: host, family: net.isIP(host) } : await lookup(host).catch((error: unknown) => {
    throw ListenError.of(error, host, port) ?? error;
  });
  const fds: number[] = [];
  let bound = port;
  try {
    for (let i = 0; i < count; i += 1) {
      const [fd, actual] = addon.listenReusePort(address, bound);
      fds.push(fd);
      bound = actual;
    }
  } catch (error) {
    fds.forEach(releaseSocket);
    throw ListenError.of(error, host, port) ?? error;
  }
  return { fds, address: { address, family: family === 6 ? 'IPv6' : 'IPv4', port: bound } };
}
