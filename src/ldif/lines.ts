/**
 * LDIF bytes to logical lines (RFC 2849): chunks to UTF-8 bytes (ChunkEncoder), physical lines
 * split on LF with the CR of a CRLF removed (LineSplitter), then records of logical lines:
 * comments dropped, folded lines joined, a blank line ends a record (RecordGrouper). reader.ts
 * runs these stages.
 */
import { LdifError } from './errors.js';

export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
const HASH = 0x23;
export const HYPHEN = 0x2d;
export const COLON = 0x3a;
export const LESS_THAN = 0x3c;
export const EMPTY = Buffer.alloc(0);
export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export const CONTROL = /^([0-9]+(?:\.[0-9]+)*)(?: +(true|false))? *(?=:|$)/;
export const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A line after unfolding, with the 1-based number of its first physical line. */
export interface LogicalLine {
  readonly line: number;
  readonly bytes: Buffer;
}

export type ValueForm = 'text' | 'base64' | 'url';

/**
 * `name: value`, `name:: base64` or `name:< url`. The value is `source[start, end)`, what follows the
 * FILL (offsets rather than a view: a view per line costs). A `-` line has name '-'.
 */
export interface Field {
  readonly line: number;
  /** The whole logical line, for error messages. */
  readonly source: Buffer;
  readonly name: string;
  readonly lower: string;
  readonly form: ValueForm;
  readonly start: number;
  readonly end: number;
}

// ---------------------------------------------------------------- chunks and lines

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Turns chunks into bytes; a string chunk ending in half a surrogate pair keeps it for the next. */
export class ChunkEncoder {
  private heldSurrogate = '';

  encode(chunk: Buffer | Uint8Array | string): Buffer {
    if (typeof chunk !== 'string') return this.flushTo(asBuffer(chunk));
    let text = this.heldSurrogate + chunk;
    this.heldSurrogate = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.heldSurrogate = text.slice(-1);
      text = text.slice(0, -1);
    }
    return Buffer.from(text, 'utf8');
  }

  finish(): Buffer {
    return this.flushTo(EMPTY);
  }

  private flushTo(bytes: Buffer): Buffer {
    if (this.heldSurrogate === '') return bytes;
    const held = Buffer.from(this.heldSurrogate, 'utf8');
    this.heldSurrogate = '';
    return Buffer.concat([held, bytes]);
  }
}

/** Splits byte chunks into lines on LF, dropping the CR of a CRLF. Keeps the unfinished tail. */
export class LineSplitter {
  private pending: Buffer[] = [];
  pendingBytes = 0;

  *split(chunk: Buffer): Generator<Buffer> {
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      yield withoutCr(this.takePending(chunk.subarray(start, newline)));
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }

  /** The last line when the input does not end with a line ending. */
  finish(): Buffer | undefined {
    return this.pendingBytes > 0 ? withoutCr(this.takePending(EMPTY)) : undefined;
  }

  private takePending(tail: Buffer): Buffer {
    if (this.pending.length === 0) return tail;
    this.pending.push(tail);
    const line = Buffer.concat(this.pending, this.pendingBytes + tail.length);
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }
}

function withoutCr(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
}

export function withoutBom(line: Buffer): Buffer {
  return line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? line.subarray(3) : line;
}

// ---------------------------------------------------------------- records from lines

/**
 * Groups physical lines into records of logical lines: drops comments (and their continuations),
 * joins folded lines (removing the one leading space), ends a record at an empty line.
 */
export class RecordGrouper {
  private lines: LogicalLine[] = [];
  private parts: Buffer[] = [];
  private partsLine = 0;
  private inComment = false;
  /** Set when the record is malformed at the line level: its remaining lines are skipped. */
  private error: LdifError | undefined;
  /** Bytes held for the current record, and the line it started on. */
  bytes = 0;
  firstLine = 0;

  constructor(private readonly maxRecordBytes: number) {}

  /** Takes one physical line; returns the finished record (or its error) when the line ends one. */
  push(line: Buffer, lineNumber: number): LogicalLine[] | LdifError | undefined {
    if (line.length === 0) return this.finish();
    if (this.error) return undefined;
    const first = line[0];
    if (first === SPACE) this.continueLine(line, lineNumber);
    else if (first === HASH) this.startComment();
    else this.startLine(line, lineNumber);
    return undefined;
  }

  /** Ends the current record, if any. */
  finish(): LogicalLine[] | LdifError | undefined {
    this.endLine();
    this.inComment = false;
    const error = this.error;
    if (error) {
      this.error = undefined;
      this.lines = [];
      this.bytes = 0;
      this.firstLine = 0;
      return error;
    }
    if (this.lines.length === 0) return undefined;
    const record = this.lines;
    this.lines = [];
    this.bytes = 0;
    this.firstLine = 0;
    return record;
  }

  private continueLine(line: Buffer, lineNumber: number): void {
    if (this.inComment) return;
    if (this.parts.length === 0) {
      this.error = new LdifError(lineNumber, 'a continuation line cannot start a record');
      return;
    }
    this.parts.push(line.subarray(1));
    this.count(line.length - 1);
  }

  private startComment(): void {
    this.endLine();
    this.inComment = true;
  }

  private startLine(line: Buffer, lineNumber: number): void {
    this.endLine();
    this.inComment = false;
    if (this.firstLine === 0) this.firstLine = lineNumber;
    this.parts.push(line);
    this.partsLine = lineNumber;
    this.count(line.length);
  }

  private endLine(): void {
    if (this.parts.length === 0) return;
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.lines.push({ line: this.partsLine, bytes });
    this.parts = [];
  }

  private count(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.maxRecordBytes) throw tooLarge(this.firstLine, this.maxRecordBytes);
  }
}

export function tooLarge(line: number, maxRecordBytes: number): LdifError {
  return new LdifError(line, `record is larger than ${maxRecordBytes} bytes (maxRecordBytes)`);
}
