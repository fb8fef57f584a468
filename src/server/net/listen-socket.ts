/**
 * The listening sockets shared by the threads of `serve --threads`. The port is bound first
 * and nobody accepts on it until every thread is ready (connections wait in the kernel's
 * backlog), so clients that connect while the server starts are spread like the rest. Each
 * thread listens on its own duplicate descriptor of the socket (native/fd-dup) and closes only
 * that one. Without the addon built, threads are not available and serve runs one.
 */
import { closeSync } from 'node:fs';
import net from 'node:net';
import { loadAddon } from './native-addon.js';

interface FdDup {
  dup(fd: number): number;
}

const addon = loadAddon<FdDup>('fd-dup', 'fd_dup');

/** Why threads cannot share a listener here, or undefined when they can. */
export function sharingUnavailable(): string | undefined {
  return addon ? undefined : 'the native/fd-dup addon is not built (npm ci builds it; it needs a C compiler)';
}

/** The descriptor a listening server holds (Node keeps it on the internal handle, on Unix). */
function listenerFd(server: net.Server): number | undefined {
  const fd = (server as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** A new descriptor of the same socket, for another thread to listen on and close. */
export function duplicateFd(fd: number): number {
  if (!addon) throw new Error(sharingUnavailable());
  return addon.dup(fd);
}

/** A bound, listening socket that nothing accepts on yet, and where it is bound. */
interface ReservedSocket {
  readonly fd: number;
  readonly address: net.AddressInfo;
}

/** Starts `server` listening (on host:port, or on a descriptor); rejects with the listen error. */
export function listenOn(server: net.Server, where: net.ListenOptions | { readonly fd: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where, () => { server.off('error', reject); resolve(); });
  });
}

/** Binds host:port; resolves with a descriptor of the listening socket that nothing accepts on yet. */
export async function reserveSocket(host: string, port: number): Promise<ReservedSocket> {
  const server = net.createServer();
  await listenOn(server, { host, port });
  try {
    const fd = listenerFd(server);
    if (fd === undefined) throw new Error('--threads: Node gives no descriptor of the listening socket on this platform');
    return { fd: duplicateFd(fd), address: server.address() as net.AddressInfo };
  } finally {
    server.close(); // closes its own descriptor only: the socket stays bound and listening
  }
}

export function releaseSocket(fd: number): void {
  closeSync(fd);
}
