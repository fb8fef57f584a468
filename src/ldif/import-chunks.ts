/**
 * An LDIF input cut into parts that start and end at record boundaries (after a blank line), each
 * with the number of its first line, for import's worker threads: a part can be read on its own
 * and its records name the same lines as a read of the whole file would.
 */
import type { FilePart } from './reader.js';
import { ChunkEncoder, LF } from './lines.js';

export interface LdifPart extends FilePart {
  readonly bytes: Buffer;
}

type Chunk = Buffer | Uint8Array | string;

/** The index just past the last blank line (LF LF, or LF CR LF), or -1. */
export function lastBoundary(bytes: Buffer): number {
  const plain = bytes.lastIndexOf('\n\n');
  const crlf = bytes.lastIndexOf('\n\r\n');
  return Math.max(plain === -1 ? -1 : plain + 2, crlf === -1 ? -1 : crlf + 3);
}

function countLines(bytes: Buffer): number {
  let lines = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) lines++;
  return lines;
}

/** Cuts the input at record boundaries; a run of `maxBytes` without one is passed on whole (its reader refuses it). */
export class PartCutter {
  private readonly encoder = new ChunkEncoder();
  private held: Buffer[] = [];
  private heldBytes = 0;
  private line = 1;
  private startOfFile = true;

  constructor(private readonly maxBytes: number) {}

  /** The parts this chunk completes (at most one). */
  *cut(chunk: Chunk): Generator<LdifPart> {
    const bytes = this.encoder.encode(chunk);
    const boundary = lastBoundary(bytes);
    if (boundary === -1) {
      this.hold(bytes);
      if (this.heldBytes > this.maxBytes) yield this.take(EMPTY_TAIL);
      return;
    }
    const part = this.take(bytes.subarray(0, boundary));
    this.hold(bytes.subarray(boundary));
    yield part;
  }

  /** What is left at the end of the input. */
  *finish(): Generator<LdifPart> {
    this.hold(this.encoder.finish());
    if (this.heldBytes > 0) yield this.take(EMPTY_TAIL);
  }

  private hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.held.push(bytes);
    this.heldBytes += bytes.length;
  }

  private take(tail: Buffer): LdifPart {
    const bytes = this.held.length === 0 ? tail : Buffer.concat([...this.held, tail]);
    this.held = [];
    this.heldBytes = 0;
    const part = { bytes, firstLine: this.line, startOfFile: this.startOfFile };
    this.line += countLines(bytes);
    this.startOfFile = false;
    return part;
  }
}

const EMPTY_TAIL = Buffer.alloc(0);

/** The input's parts, in order. */
export async function* ldifParts(input: AsyncIterable<Chunk> | Iterable<Chunk>, maxBytes: number): AsyncGenerator<LdifPart> {
  const cutter = new PartCutter(maxBytes);
  for await (const chunk of input) yield* cutter.cut(chunk);
  yield* cutter.finish();
}
