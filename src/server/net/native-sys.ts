/**
 * The native/sys addon (built by npm ci): a socket's TCP state from the kernel, and glibc's
 * malloc_trim. Both are optional: without the addon, peerLeft answers false (a connection whose
 * reading is paused sees its client leave only once its queue drains) and trimMemory does
 * nothing (freed memory stays in the resident set until malloc reuses it).
 */
import type { Socket } from 'node:net';
import { loadAddon } from '../../native-addon.js';

interface Sys {
  tcpState(fd: number): number;
  mallocTrim(): boolean;
}

const addon = loadAddon<Sys>('sys', 'sys');

/** Why the addon is not there, or undefined when it loaded. */
export function sysUnavailable(): string | undefined {
  return addon ? undefined : 'the native/sys addon is not built (npm ci builds it; it needs a C compiler)';
}

/** Linux's TCP states (include/net/tcp_states.h) that mean the client is gone. */
const TCP_CLOSE = 7;
const TCP_CLOSE_WAIT = 8;

/** The descriptor of a TCP socket (Node keeps it on the internal handle, on Unix). */
function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** Has the client closed or reset this TCP connection (whatever is still unread)? */
export function peerLeft(socket: Socket): boolean {
  const fd = addon && socketFd(socket);
  if (fd === undefined) return false;
  try {
    const state = addon!.tcpState(fd);
    return state === TCP_CLOSE_WAIT || state === TCP_CLOSE;
  } catch {
    return false;
  }
}

/** Hands the free pages of malloc's arenas back to the kernel; true if any were. */
export function trimMemory(): boolean {
  return addon?.mallocTrim() ?? false;
}

/** While reading is paused, how often the kernel is asked whether the client has left. */
const PEER_CHECK_MS = 500;

/**
 * While a connection's reading is paused, Node would see the client's FIN or reset only after
 * every request queued before it: the kernel is asked instead, every PEER_CHECK_MS, and `left`
 * is called once the client is gone.
 */
export class PeerWatch {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tcp: Socket, private readonly left: () => void) {}

  /** Watches while `paused`, stops when not. */
  watch(paused: boolean): void {
    if (!paused) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    this.timer ??= setInterval(() => {
      if (peerLeft(this.tcp)) this.left();
    }, PEER_CHECK_MS).unref();
  }
}
