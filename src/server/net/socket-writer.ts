/**
 * A connection's writes to its socket: one message at a time, waiting while the socket's buffer
 * is full (every waiting write on one promise; a client that reads nothing for WRITE_STALL_MS is
 * cut off), and a search's entries held with the response that follows them, so that what one
 * turn of the loop answers goes out in one write.
 */
import type { Socket } from 'node:net';
import { Abandoned } from '../errors.js';
import type { ThreadStats } from '../monitor/stats.js';

/** A client that has not read what we wrote for this long is cut off. */
export const WRITE_STALL_MS = 60_000;

export class SocketWriter {
  /** Writes are held until the loop's check phase (coalesceWrites). */
  private corked = false;
  /** While the socket's buffer is full: what every waiting write waits on (drained()). */
  private drainWait: Promise<void> | undefined;

  /**
   * `socket`: where writes go (after StartTLS, the TLS socket); `stalled`: the client stopped
   * reading (disconnect it); `closing`: the connection is closing (a write that waited ends as abandoned).
   */
  constructor(public socket: Socket, private readonly stats: ThreadStats, private readonly stalled: () => void, private readonly closing: () => boolean) {}

  /**
   * Writes one message: undefined when the socket's buffer took it, else a promise that resolves
   * when the buffer has drained. A connection the client has closed (or reset) ends the operation
   * quietly, as an abandon does (thrown, or the promise rejects).
   */
  send(message: Buffer): Promise<void> | undefined {
    if (this.socket.destroyed) throw new Abandoned();
    this.stats.sent(message.length);
    if (this.socket.write(message)) return undefined;
    return this.afterDrain();
  }

  private async afterDrain(): Promise<void> {
    await this.drained();
    if (this.socket.destroyed || this.closing()) throw new Abandoned();
  }

  /**
   * Resolves when the socket's buffer has drained or the socket closed. Every operation whose
   * write found the buffer full waits on this one promise (one pair of listeners, however many
   * pipelined operations wait); a client that stops reading is disconnected after WRITE_STALL_MS.
   */
  private drained(): Promise<void> {
    this.drainWait ??= new Promise<void>((resolve) => {
      const socket = this.socket;
      const stall = setTimeout(() => this.stalled(), WRITE_STALL_MS);
      const done = (): void => {
        clearTimeout(stall);
        socket.off('drain', done);
        socket.off('close', done);
        this.drainWait = undefined;
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
    return this.drainWait;
  }

  /** A message before an operation's response (a search's entries): held with what follows it in this turn (coalesceWrites). */
  sendPart(message: Buffer): Promise<void> | undefined {
    this.coalesceWrites();
    return this.send(message);
  }

  /**
   * Holds the socket's writes until the loop's check phase, so that what one turn of the loop
   * answers goes out in one syscall (a search's entries and its SearchResultDone: one write, not
   * one per message; the kernel's loopback work is billed to each write). Responses sent alone
   * (a bind's) are written at once.
   */
  private coalesceWrites(): void {
    if (this.corked) return;
    const socket = this.socket;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }
}
