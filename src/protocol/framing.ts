/**
 * Splits a connection's byte stream into LDAPMessage frames (whole BER TLVs), with a cap on a
 * frame's size that is enforced as soon as the header declares it: nothing is buffered toward
 * an oversized frame, and no recursion happens however many frames one chunk holds. A partial
 * frame is copied into one buffer of its own, grown by doubling up to the frame's size: keeping
 * the chunks themselves held each socket read's whole allocation, so a sender trickling a byte
 * at a time made the server hold about 1,000 times what it had sent.
 */
import { FrameError } from './errors.js';

/** OpenLDAP's default cap for anonymous sessions (`sockbuf_max_incoming`). */
export const DEFAULT_MAX_FRAME_BYTES = 262_143;

/** The longest header: the tag, 0x84 and four length bytes. */
const MAX_HEADER_BYTES = 6;
const SEQUENCE_TAG = 0x30;
const INCOMPLETE = -1;
const EMPTY = Buffer.alloc(0);
/** The first buffer of a partial frame (doubled from there). */
const MIN_PARTIAL_BYTES = 256;

export interface FrameReaderOptions {
  /** The largest frame accepted, header included (default {@link DEFAULT_MAX_FRAME_BYTES}). */
  readonly maxBytes?: number;
}

export class FrameReader {
  #maxBytes = DEFAULT_MAX_FRAME_BYTES;
  /** The partial frame (or partial header): its first #buffered bytes. */
  #partial: Buffer = EMPTY;
  #buffered = 0;
  /** The partial frame's total size once its header is known, else INCOMPLETE. */
  #frameSize = INCOMPLETE;
  #failure: FrameError | undefined;
  /** The chunk being read, and where the bytes after the frame handed over last begin (for takeRest). */
  #chunk: Buffer = EMPTY;
  #chunkRead = 0;

  constructor(options: FrameReaderOptions = {}) {
    if (options.maxBytes !== undefined) this.maxBytes = options.maxBytes;
  }

  /** The cap on a frame's total size; it may be changed at any time (e.g. raised after a bind). */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  set maxBytes(value: number) {
    if (!Number.isSafeInteger(value) || value < 2) throw new RangeError(`maxBytes must be an integer >= 2, got ${value}`);
    this.#maxBytes = value;
  }

  /** Bytes held for a frame not yet complete. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  /**
   * Takes the next chunk of the stream and returns every frame it completes, in order (frames
   * may be views into `chunk`). Throws FrameError on a malformed or oversized header; the reader
   * then stays failed, and the connection should be closed.
   */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    this.read(chunk, (frame) => frames.push(frame) > 0);
    return frames;
  }

  /**
   * Like push, but hands each frame to `take` as it is found, and reads the next header only if
   * `take` returns true. A caller that stops (after StartTLS what follows is TLS, not LDAP) gets
   * the bytes not handed over from takeRest() (in `take` or after), and must call it before
   * reading more.
   */
  read(chunk: Buffer, take: (frame: Buffer) => boolean): void {
    if (this.#failure) throw this.#failure;
    try {
      this.#take(chunk, take);
    } catch (error) {
      if (error instanceof FrameError) this.#fail(error);
      throw error;
    }
  }

  /** Every byte received but not returned as a frame, in order; the reader is left empty. */
  takeRest(): Buffer {
    const rest = Buffer.concat([this.#held(), this.#chunk.subarray(this.#chunkRead)]);
    this.#reset();
    this.#chunk = EMPTY;
    return rest;
  }

  #take(chunk: Buffer, take: (frame: Buffer) => boolean): void {
    let offset = 0;
    if (this.#buffered > 0) {
      const frames: Buffer[] = [];
      offset = this.#continuePartial(chunk, frames);
      if (offset < 0) return;
      if (!this.#handOver(take, frames[0]!, chunk, offset)) return;
    }
    while (offset < chunk.length) {
      const size = frameSize(chunk, offset, this.#maxBytes);
      if (size === INCOMPLETE || chunk.length - offset < size) {
        this.#startPartial(chunk.subarray(offset), size);
        break;
      }
      offset += size;
      if (!this.#handOver(take, chunk.subarray(offset - size, offset), chunk, offset)) return;
    }
    this.#chunk = EMPTY;
  }

  /** Gives `frame` to `take`, noting that `chunk` is read up to `end` should it stop. */
  #handOver(take: (frame: Buffer) => boolean, frame: Buffer, chunk: Buffer, end: number): boolean {
    this.#chunk = chunk;
    this.#chunkRead = end;
    return take(frame);
  }

  /** Feeds the partial frame; returns the offset in `chunk` after it, or -1 if all was used. */
  #continuePartial(chunk: Buffer, frames: Buffer[]): number {
    let used = 0;
    if (this.#frameSize === INCOMPLETE) {
      used = this.#completeHeader(chunk);
      if (this.#frameSize === INCOMPLETE) return -1;
    }
    const need = this.#frameSize - this.#buffered;
    if (chunk.length - used < need) {
      this.#append(chunk.subarray(used));
      return -1;
    }
    this.#append(chunk.subarray(used, used + need));
    frames.push(this.#held());
    this.#reset();
    return used + need;
  }

  /**
   * The partial header (fewer than six bytes) plus the start of `chunk`: learns the frame size
   * when they hold a whole header. Returns how many bytes of `chunk` were taken into the
   * partial frame.
   */
  #completeHeader(chunk: Buffer): number {
    const taken = Math.min(chunk.length, MAX_HEADER_BYTES);
    const head = Buffer.concat([this.#held(), chunk.subarray(0, taken)]);
    this.#frameSize = frameSize(head, 0, this.#maxBytes);
    if (this.#frameSize === INCOMPLETE) {
      this.#append(chunk);
      return chunk.length;
    }
    // Whatever of `head` lies beyond this frame is left in `chunk` for the next one.
    const fromChunk = Math.min(taken, this.#frameSize - this.#buffered);
    this.#append(chunk.subarray(0, fromChunk));
    return fromChunk;
  }

  #startPartial(rest: Buffer, size: number): void {
    this.#frameSize = size;
    this.#append(rest);
  }

  /** Copies `piece` after the bytes held, growing the buffer by doubling (at most to the frame's size, once known). */
  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    const needed = this.#buffered + piece.length;
    if (needed > this.#partial.length) {
      const doubled = Math.max(needed, 2 * this.#partial.length, MIN_PARTIAL_BYTES);
      const grown = Buffer.allocUnsafeSlow(this.#frameSize === INCOMPLETE ? doubled : Math.min(doubled, this.#frameSize));
      this.#partial.copy(grown, 0, 0, this.#buffered);
      this.#partial = grown;
    }
    piece.copy(this.#partial, this.#buffered);
    this.#buffered = needed;
  }

  /** The bytes held (a view: #reset lets go of the buffer, so a frame handed over is never written again). */
  #held(): Buffer {
    return this.#partial.subarray(0, this.#buffered);
  }

  #reset(): void {
    this.#partial = EMPTY;
    this.#buffered = 0;
    this.#frameSize = INCOMPLETE;
  }

  #fail(error: FrameError): void {
    this.#failure = error;
    this.#reset();
  }
}

/**
 * The total size of the frame whose header starts at `offset`, or INCOMPLETE when the header
 * is not all there. Throws FrameError for a header that is not an LDAPMessage's, or that
 * declares more than `maxBytes`.
 */
function frameSize(buffer: Buffer, offset: number, maxBytes: number): number {
  const available = buffer.length - offset;
  if (available < 1) return INCOMPLETE;
  const tag = buffer[offset]!;
  if (tag !== SEQUENCE_TAG) {
    throw new FrameError('malformed', `expected an LDAPMessage (0x30), got 0x${hex(tag)}`);
  }
  if (available < 2) return INCOMPLETE;
  const first = buffer[offset + 1]!;
  if (first < 0x80) return checkSize(2 + first, maxBytes);
  const count = first & 0x7f;
  if (count === 0) throw new FrameError('malformed', 'indefinite length is not allowed');
  if (count > 4) throw new FrameError('malformed', `length with ${count} length bytes`);
  if (available < 2 + count) return INCOMPLETE;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + buffer[offset + 2 + i]!;
  return checkSize(2 + count + length, maxBytes);
}

function checkSize(size: number, maxBytes: number): number {
  if (size > maxBytes) {
    throw new FrameError('tooLarge', `message of ${size} bytes exceeds the limit of ${maxBytes}`);
  }
  return size;
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, '0');
}
