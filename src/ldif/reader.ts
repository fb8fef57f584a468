/**
 * Streaming LDIF reader (RFC 2849): the stages, run together (lines.ts, fields.ts, records.ts).
 *
 * Bytes flow through four small stages, one record in memory at a time:
 *   chunks -> ChunkEncoder (strings to UTF-8 bytes)
 *          -> LineSplitter (physical lines, split on LF, CR of CRLF removed)
 *          -> RecordGrouper (comments dropped, folded lines joined, blank lines end a record)
 *          -> parseField (name, value form and offsets per logical line)
 *          -> RecordParser (one LdifRecord per group)
 * Lines are split as bytes and decoded per line, so a multi-byte UTF-8 character split across
 * chunks is never corrupted. Parsing is synchronous; a record with `:<` values first has its
 * files read (asynchronously), so the common case costs no promise per record.
 */
import { LdifError } from './errors.js';
import type { LdifRecord } from './types.js';
import { ChunkEncoder, LineSplitter, withoutBom, RecordGrouper, tooLarge, type LogicalLine, type Field } from './lines.js';
import { parseField, NO_FILES, readFileValues, fileReferences, type FileValues } from './fields.js';
import { RecordParser, FileState } from './records.js';

export interface ReadLdifOptions {
  /** Largest record (its lines' bytes, and any one `:<` file) accepted. Default 64 MiB. */
  readonly maxRecordBytes?: number;
  /** Report a malformed record and go on with the next one (instead of throwing). */
  readonly onError?: (error: LdifError) => void;
  /**
   * The input is a part of a file that starts at a record (import's worker threads): the number
   * of its first line, and whether it is the file's start (where a BOM and a version line may
   * be). The rule that content and change records do not mix is then the caller's (FileState).
   */
  readonly part?: FilePart;
}

export interface FilePart {
  readonly firstLine: number;
  readonly startOfFile: boolean;
}

export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;

const END = Symbol('end of input');
type Chunk = Buffer | Uint8Array | string;

/** The input's chunks, then END. */
async function* withEnd(input: AsyncIterable<Chunk> | Iterable<Chunk>): AsyncGenerator<Chunk | typeof END> {
  yield* input;
  yield END;
}

/** All the stages for one input. */
class LdifStream {
  private readonly encoder = new ChunkEncoder();
  private readonly splitter = new LineSplitter();
  private readonly grouper: RecordGrouper;
  private readonly file: FileState;
  private lineNumber: number;
  private readonly bomLine: number;

  constructor(private readonly maxRecordBytes: number, part: FilePart | undefined) {
    this.grouper = new RecordGrouper(maxRecordBytes);
    this.file = part ? new FileState(part.startOfFile, false) : new FileState();
    this.lineNumber = (part?.firstLine ?? 1) - 1;
    this.bomLine = part === undefined || part.startOfFile ? this.lineNumber + 1 : -1;
  }

  /** The groups of lines this chunk completes, one per record. */
  *recordLines(chunk: Chunk | typeof END): Generator<LogicalLine[] | LdifError> {
    yield* chunk === END ? this.finish() : this.groups(chunk);
  }

  /** A record's fields, the `version:` line left out. */
  fields(group: readonly LogicalLine[]): Field[] {
    return this.file.withoutVersion(group.map(parseField));
  }

  record(fields: readonly Field[], files: FileValues): LdifRecord {
    const record = new RecordParser(files).parse(fields);
    this.file.check(record);
    return record;
  }

  private *groups(chunk: Chunk): Generator<LogicalLine[] | LdifError> {
    for (const line of this.splitter.split(this.encoder.encode(chunk))) {
      const group = this.push(line);
      if (group !== undefined) yield group;
    }
    this.checkPending();
  }

  private *finish(): Generator<LogicalLine[] | LdifError> {
    yield* this.groups(this.encoder.finish());
    const last = this.splitter.finish();
    const group = last === undefined ? undefined : this.push(last);
    if (group !== undefined) yield group;
    const rest = this.grouper.finish();
    if (rest !== undefined) yield rest;
  }

  private push(line: Buffer): LogicalLine[] | LdifError | undefined {
    this.lineNumber++;
    return this.grouper.push(this.lineNumber === this.bomLine ? withoutBom(line) : line, this.lineNumber);
  }

  /** An unfinished line counts toward its record's size, so a huge line fails before it is whole. */
  private checkPending(): void {
    if (this.splitter.pendingBytes + this.grouper.bytes > this.maxRecordBytes) {
      throw tooLarge(this.grouper.firstLine || this.lineNumber + 1, this.maxRecordBytes);
    }
  }
}

/** Runs one step of a record; with `onError`, an LdifError skips the record instead of ending the read. */
function recover<T>(step: () => T, onError: ((error: LdifError) => void) | undefined): T | undefined {
  try {
    return step();
  } catch (error) {
    if (!onError || !(error instanceof LdifError)) throw error;
    onError(error);
    return undefined;
  }
}

async function recoverAsync<T>(step: Promise<T>, onError: ((error: LdifError) => void) | undefined): Promise<T | undefined> {
  try {
    return await step;
  } catch (error) {
    return recover(() => { throw error; }, onError);
  }
}

export interface ReadBatchOptions extends ReadLdifOptions {
  /** Put a malformed record's LdifError in the batch, in its place, instead of throwing it. */
  readonly keepErrors?: boolean;
}

/**
 * The records completed by each input chunk, as one array: the cheap way to read a large file
 * (one await per chunk, not per record). A record too large to hold always throws.
 */
export async function* readLdifBatches(
  input: AsyncIterable<Chunk> | Iterable<Chunk>,
  options: ReadBatchOptions = {},
): AsyncGenerator<(LdifRecord | LdifError)[]> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  if (!(maxRecordBytes > 0)) throw new RangeError('maxRecordBytes must be a positive number');
  const stream = new LdifStream(maxRecordBytes, options.part);
  for await (const chunk of withEnd(input)) {
    const batch: (LdifRecord | LdifError)[] = [];
    const onError = options.keepErrors ? (error: LdifError) => { batch.push(error); } : undefined;
    try {
      for (const group of stream.recordLines(chunk)) {
        const parsed = group instanceof LdifError ? recover(() => { throw group; }, onError) : parseGroup(stream, group, maxRecordBytes, onError);
        const record = parsed instanceof Promise ? await parsed : parsed;
        if (record !== undefined) batch.push(record);
      }
    } catch (error) {
      if (batch.length > 0) yield batch;
      throw error;
    }
    if (batch.length > 0) yield batch;
  }
}

/**
 * One record from its lines; a malformed one goes to `onError` (or throws without it). A promise
 * only when the record names `:<` files, so the common path costs no promise per record.
 */
function parseGroup(
  stream: LdifStream, group: readonly LogicalLine[], maxRecordBytes: number, onError: ((error: LdifError) => void) | undefined,
): LdifRecord | undefined | Promise<LdifRecord | undefined> {
  const fields = recover(() => stream.fields(group), onError);
  if (fields === undefined || fields.length === 0) return undefined;
  const references = fileReferences(fields);
  if (references.length === 0) return recover(() => stream.record(fields, NO_FILES), onError);
  return recoverAsync(readFileValues(references, maxRecordBytes), onError)
    .then((files) => (files === undefined ? undefined : recover(() => stream.record(fields, files), onError)));
}

/**
 * Reads LDIF records one at a time from chunks of bytes (or strings). Holds one record in memory;
 * a record above `maxRecordBytes` is an LdifError. Every problem is an LdifError naming its line.
 * With `onError`, a malformed record is reported and skipped and reading goes on; a record too
 * large to hold still ends the read.
 */
export async function* readLdif(
  input: AsyncIterable<Chunk> | Iterable<Chunk>,
  options: ReadLdifOptions = {},
): AsyncGenerator<LdifRecord> {
  const { onError } = options;
  for await (const batch of readLdifBatches(input, { ...options, keepErrors: true })) {
    for (const item of batch) {
      if (!(item instanceof LdifError)) yield item;
      else if (onError) onError(item);
      else throw item;
    }
  }
}

/** All records of an LDIF text, for tests and small inputs. */
export async function parseLdif(text: string, options: ReadLdifOptions = {}): Promise<LdifRecord[]> {
  const records: LdifRecord[] = [];
  for await (const record of readLdif([text], options)) records.push(record);
  return records;
}
