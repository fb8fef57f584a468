/**
 * The requests a connection has read but not started, in arrival order. A request waits as the
 * bytes of its message (a view of what was read) with its message ID and kind read from the
 * envelope, and is decoded only when it is next to start: a decoded request takes up to 35 times
 * its bytes (a 239 KB filter of 9,999 terms: 6.6 MB once decoded and compiled), so what a
 * connection has waiting costs what arrived, not more. (Unbind, Abandon and extended requests are
 * decoded on arrival by the connection: they act, or may start TLS, at once.) Each request keeps
 * the time it arrived, for the access log's wtime (0 when the connection does not time them).
 */
import { decodeRequest, type DecodeOptions, type RequestHead } from '../../protocol/index.js';
import type { AnsweredRequest } from '../dispatch.js';

interface Waiting extends RequestHead {
  readonly kind: AnsweredRequest['kind'];
  /** When it arrived (performance.now()), or 0. */
  readonly arrived: number;
  /** The size of its message. */
  readonly bytes: number;
  /** The message, until it is decoded. */
  frame?: Buffer;
  request?: AnsweredRequest;
}

export class RequestQueue {
  private readonly waiting: Waiting[] = [];
  private waitingBytes = 0;

  get length(): number {
    return this.waiting.length;
  }

  /** The size of the messages waiting, as they arrived. */
  get bytes(): number {
    return this.waitingBytes;
  }

  /** Queues a message as it arrived; `head` is what peekRequest read of it. */
  pushFrame(head: RequestHead & { readonly kind: AnsweredRequest['kind'] }, frame: Buffer, arrived: number): void {
    this.add({ messageId: head.messageId, kind: head.kind, arrived, bytes: frame.length, frame });
  }

  /** Queues a request decoded on arrival from a message of `bytes`. */
  pushRequest(request: AnsweredRequest, arrived: number, bytes: number): void {
    this.add({ messageId: request.messageId, kind: request.kind, arrived, bytes, request });
  }

  private add(waiting: Waiting): void {
    this.waiting.push(waiting);
    this.waitingBytes += waiting.bytes;
  }

  /** Is a request with this message ID waiting? */
  has(messageId: number): boolean {
    return this.waiting.some((waiting) => waiting.messageId === messageId);
  }

  /** Abandon of a waiting request (a bind cannot be abandoned): removed unstarted; false if none. */
  abandon(messageId: number): boolean {
    const index = this.waiting.findIndex((waiting) => waiting.messageId === messageId && waiting.kind !== 'bind');
    if (index === -1) return false;
    this.waitingBytes -= this.waiting.splice(index, 1)[0]!.bytes;
    return true;
  }

  /** The request next in line, decoded now if it was not (throws ProtocolError if it is malformed); undefined when none waits. */
  next(options: DecodeOptions = {}): AnsweredRequest | undefined {
    const first = this.waiting[0];
    if (!first) return undefined;
    if (!first.request) {
      first.request = decodeRequest(first.frame!, options) as AnsweredRequest;
      first.frame = undefined;
    }
    return first.request;
  }

  /** Removes the request next in line (after next() returned it); when it arrived (0 if not timed). */
  shift(): number {
    const first = this.waiting.shift();
    this.waitingBytes -= first?.bytes ?? 0;
    return first?.arrived ?? 0;
  }

  clear(): void {
    this.waiting.length = 0;
    this.waitingBytes = 0;
  }
}
