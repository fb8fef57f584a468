/**
 * Streaming LDIF reader (RFC 2849).
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
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { LdifError, quoteLine } from './errors.js';
import type { LdifChange, LdifControl, LdifRecord, LdifValue } from './types.js';
import { errorCode, errorMessage } from '../errors.js';

export interface ReadLdifOptions {
  /** Largest record (its lines' bytes, and any one `:<` file) accepted. Default 64 MiB. */
  readonly maxRecordBytes?: number;
  /** Report a malformed record and go on with the next one (instead of throwing). */
  readonly onError?: (error: LdifError) => void;
}

export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** RFC 2849 AttributeDescription: a name or numeric OID, then `;option`s. */
export const ATTRIBUTE_DESCRIPTION = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*)(?:;[A-Za-z0-9-]+)*$/;

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const HASH = 0x23;
const HYPHEN = 0x2d;
const COLON = 0x3a;
const LESS_THAN = 0x3c;
const EMPTY = Buffer.alloc(0);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const CONTROL = /^([0-9]+(?:\.[0-9]+)*)(?: +(true|false))? *(?=:|$)/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A line after unfolding, with the 1-based number of its first physical line. */
interface LogicalLine {
  readonly line: number;
  readonly bytes: Buffer;
}

type ValueForm = 'text' | 'base64' | 'url';

/**
 * `name: value`, `name:: base64` or `name:< url`. The value is `source[start, end)`, what follows the
 * FILL (offsets rather than a view: a view per line costs). A `-` line has name '-'.
 */
interface Field {
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
class ChunkEncoder {
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
class LineSplitter {
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

function withoutBom(line: Buffer): Buffer {
  return line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? line.subarray(3) : line;
}

// ---------------------------------------------------------------- records from lines

/**
 * Groups physical lines into records of logical lines: drops comments (and their continuations),
 * joins folded lines (removing the one leading space), ends a record at an empty line.
 */
class RecordGrouper {
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

function tooLarge(line: number, maxRecordBytes: number): LdifError {
  return new LdifError(line, `record is larger than ${maxRecordBytes} bytes (maxRecordBytes)`);
}

// ---------------------------------------------------------------- fields and values

/** The value after `name:` (at = index just past that colon): its form and where its bytes after the FILL are. */
function valueSpec(bytes: Buffer, at: number): { form: ValueForm; start: number; end: number } {
  let form: ValueForm = 'text';
  if (bytes[at] === COLON) form = 'base64';
  else if (bytes[at] === LESS_THAN) form = 'url';
  if (form !== 'text') at++;
  while (bytes[at] === SPACE) at++;
  let end = bytes.length;
  if (form !== 'text') while (end > at && bytes[end - 1] === SPACE) end--;
  return { form, start: at, end };
}

function isSeparator(bytes: Buffer): boolean {
  if (bytes[0] !== HYPHEN) return false;
  for (let i = 1; i < bytes.length; i++) if (bytes[i] !== SPACE) return false;
  return true;
}

function parseField({ line, bytes }: LogicalLine): Field {
  const colon = bytes.indexOf(COLON);
  if (colon === -1) {
    if (isSeparator(bytes)) return { line, source: bytes, name: '-', lower: '-', form: 'text', start: 0, end: 0 };
    throw new LdifError(line, `expected "attribute: value", got ${quoteLine(bytes)}`);
  }
  const name = bytes.toString('latin1', 0, colon);
  const lower = lowerCaseName(name);
  if (lower === undefined) {
    throw new LdifError(line, `expected "attribute: value", got ${quoteLine(bytes)} (${quoteLine(name)} is not an attribute description)`);
  }
  return { line, source: bytes, name, lower, ...valueSpec(bytes, colon + 1) };
}

/** Valid attribute descriptions seen so far, lower-cased: a file repeats a few dozen names millions of times. */
const knownNames = new Map<string, string>();

function lowerCaseName(name: string): string | undefined {
  const known = knownNames.get(name);
  if (known !== undefined) return known;
  if (!ATTRIBUTE_DESCRIPTION.test(name)) return undefined;
  if (knownNames.size >= 10_000) knownNames.clear();
  const lower = name.toLowerCase();
  knownNames.set(name, lower);
  return lower;
}

function decodeBase64({ source, start, end, line }: Field): Buffer {
  const text = source.toString('latin1', start, end);
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new LdifError(line, 'invalid base64 value');
  return Buffer.from(text, 'base64');
}

/** A `text` or `base64` value as a fresh Buffer (not a view of the input chunk). */
function inlineValue(field: Field): Buffer {
  if (field.form === 'base64') return decodeBase64(field);
  const copy = Buffer.allocUnsafe(field.end - field.start);
  field.source.copy(copy, 0, field.start, field.end);
  return copy;
}

function filePathOf(url: string, line: number): string {
  if (!/^file:\/\//i.test(url)) throw new LdifError(line, `only file:// URLs are supported, got ${quoteLine(url)}`);
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new LdifError(line, `invalid file URL ${quoteLine(url)}: ${errorMessage(error)}`);
  }
}

/** The files named by `:<` values, read before the record is parsed: logical line number -> contents. */
type FileValues = ReadonlyMap<number, Buffer>;
const NO_FILES: FileValues = new Map();

async function readFileValue(field: Field, maxBytes: number): Promise<Buffer> {
  const url = field.source.toString('utf8', field.start, field.end);
  const path = filePathOf(url, field.line);
  try {
    if ((await stat(path)).size > maxBytes) throw tooLarge(field.line, maxBytes);
    return await readFile(path);
  } catch (error) {
    if (error instanceof LdifError) throw error;
    throw new LdifError(field.line, `cannot read ${url}: ${errorCode(error) ?? errorMessage(error)}`);
  }
}

async function readFileValues(references: readonly Field[], maxBytes: number): Promise<FileValues> {
  const files = new Map<number, Buffer>();
  for (const field of references) files.set(field.line, await readFileValue(field, maxBytes));
  return files;
}

/** A value's bytes: inline ones decoded, `:<` ones from the files read beforehand. */
function fieldValue(field: Field, files: FileValues): Buffer {
  return field.form === 'url' ? files.get(field.line)! : inlineValue(field);
}

/** A value that must be a UTF-8 string (dn, newrdn, changetype, ...); URLs are not allowed there. */
function textOf(field: Field): string {
  if (field.form === 'url') throw new LdifError(field.line, `"${field.name}:" cannot take a URL value`);
  const bytes = field.form === 'base64' ? decodeBase64(field) : field.source.subarray(field.start, field.end);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new LdifError(field.line, `the "${field.name}:" value is not valid UTF-8`);
  }
}

/** `control: OID [true|false] [value-spec]` split up; the value (if any) as a field of its own. */
function controlParts(field: Field): { type: string; critical: boolean; value?: Field } {
  const match = field.form === 'text' ? CONTROL.exec(field.source.toString('latin1', field.start, field.end)) : null;
  if (match === null) {
    throw new LdifError(field.line, `expected "control: OID [true|false] [value]", got ${quoteLine(field.source)}`);
  }
  const parts = { type: match[1]!, critical: match[2] === 'true' };
  const rest = field.start + match[0].length;
  return rest === field.end ? parts : { ...parts, value: { ...field, ...valueSpec(field.source, rest + 1) } };
}

/** The `:<` values of a record (after its dn), including those of its leading control lines. */
function fileReferences(fields: readonly Field[]): Field[] {
  const references: Field[] = [];
  for (let i = 1; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.form === 'url') references.push(field);
  }
  for (let i = 1; i < fields.length && fields[i]!.lower === 'control'; i++) {
    const value = controlParts(fields[i]!).value;
    if (value?.form === 'url') references.push(value);
  }
  return references;
}

class FieldCursor {
  private index = 0;

  constructor(private readonly fields: readonly Field[]) {}

  next(): Field | undefined {
    return this.fields[this.index++];
  }

  nextIs(lowerName: string): boolean {
    return this.fields[this.index]?.lower === lowerName;
  }

  /** The next field, which must be `lowerName:`; `line` is where to point when it is missing. */
  expect(lowerName: string, line: number): Field {
    const field = this.next();
    if (field === undefined) throw new LdifError(line, `expected a "${lowerName}:" line, but the record ends`);
    if (field.lower !== lowerName) throw new LdifError(field.line, `expected "${lowerName}:", got ${quoteLine(field.name)}`);
    return field;
  }

  expectEnd(what: string): void {
    const field = this.next();
    if (field !== undefined) throw new LdifError(field.line, `${what} takes no further lines, got ${quoteLine(field.name)}`);
  }
}

// ---------------------------------------------------------------- records

type RecordHead = { readonly dn: string; readonly line: number; readonly controls: readonly LdifControl[] };

const MODIFY_OPS: Readonly<Record<string, LdifChange['op']>> = {
  add: 'add', delete: 'delete', replace: 'replace', increment: 'increment',
};

/** Turns one record's fields into an LdifRecord; `files` holds the contents of its `:<` values. */
class RecordParser {
  constructor(private readonly files: FileValues) {}

  parse(fields: readonly Field[]): LdifRecord {
    const cursor = new FieldCursor(fields);
    const dnField = cursor.next()!;
    if (dnField.lower !== 'dn') {
      throw new LdifError(dnField.line, `a record must start with "dn:", got ${quoteLine(dnField.source)}`);
    }
    const controls: LdifControl[] = [];
    let lastControl: Field | undefined;
    while (cursor.nextIs('control')) {
      lastControl = cursor.next()!;
      controls.push(this.control(lastControl));
    }
    const head: RecordHead = { dn: textOf(dnField), line: dnField.line, controls };
    if (cursor.nextIs('changetype')) return this.change(head, cursor);
    if (lastControl) throw new LdifError(lastControl.line, '"control:" lines must be followed by "changetype:"');
    return { kind: 'entry', ...head, attributes: this.attributes(cursor, dnField.line) };
  }

  private change(head: RecordHead, cursor: FieldCursor): LdifRecord {
    const typeField = cursor.next()!;
    const type = textOf(typeField);
    switch (type.toLowerCase()) {
      case 'add':
        return { kind: 'add', ...head, attributes: this.attributes(cursor, typeField.line) };
      case 'delete':
        cursor.expectEnd('a delete record');
        return { kind: 'delete', ...head };
      case 'modify':
        return { kind: 'modify', ...head, changes: this.changes(cursor) };
      case 'modrdn':
      case 'moddn':
        return { kind: 'modrdn', ...head, ...this.rename(cursor, typeField.line) };
      default:
        throw new LdifError(typeField.line, `changetype ${quoteLine(type)} is not add, delete, modify, modrdn or moddn`);
    }
  }

  private attributes(cursor: FieldCursor, line: number): LdifValue[] {
    const attributes: LdifValue[] = [];
    for (let field = cursor.next(); field !== undefined; field = cursor.next()) {
      if (field.name === '-') throw new LdifError(field.line, 'expected "attribute: value", got "-"');
      attributes.push({ name: field.name, value: fieldValue(field, this.files) });
    }
    if (attributes.length === 0) throw new LdifError(line, 'the record has no "attribute: value" lines');
    return attributes;
  }

  private changes(cursor: FieldCursor): LdifChange[] {
    const changes: LdifChange[] = [];
    for (let field = cursor.next(); field !== undefined; field = cursor.next()) {
      changes.push(this.modification(field, cursor));
    }
    return changes;
  }

  /** One `op: attribute` section; its values must name the same attribute; `-` (or the record's end) ends it. */
  private modification(head: Field, cursor: FieldCursor): LdifChange {
    const op = Object.hasOwn(MODIFY_OPS, head.lower) ? MODIFY_OPS[head.lower]! : undefined;
    if (op === undefined) {
      throw new LdifError(head.line, `expected "add:", "delete:", "replace:" or "increment:", got ${quoteLine(head.name)}`);
    }
    const attribute = textOf(head);
    if (!ATTRIBUTE_DESCRIPTION.test(attribute)) {
      throw new LdifError(head.line, `${quoteLine(attribute)} is not an attribute description`);
    }
    const values: Buffer[] = [];
    const lower = attribute.toLowerCase();
    for (let field = cursor.next(); field !== undefined && field.name !== '-'; field = cursor.next()) {
      if (field.lower !== lower) {
        throw new LdifError(field.line, `expected "-" or a "${attribute}" value in the "${op}: ${attribute}" section, got ${quoteLine(field.name)}`);
      }
      values.push(fieldValue(field, this.files));
    }
    if (op === 'increment' && values.length !== 1) {
      throw new LdifError(head.line, `"increment: ${attribute}" needs exactly one value, got ${values.length}`);
    }
    return { op, attribute, values };
  }

  private rename(cursor: FieldCursor, line: number): { newRdn: string; deleteOldRdn: boolean; newSuperior?: string } {
    const newRdnField = cursor.expect('newrdn', line);
    const flagField = cursor.expect('deleteoldrdn', newRdnField.line);
    const flag = textOf(flagField);
    if (flag !== '0' && flag !== '1') throw new LdifError(flagField.line, `deleteoldrdn must be 0 or 1, got ${quoteLine(flag)}`);
    const rename = { newRdn: textOf(newRdnField), deleteOldRdn: flag === '1' };
    if (!cursor.nextIs('newsuperior')) {
      cursor.expectEnd('a modrdn record');
      return rename;
    }
    const newSuperior = textOf(cursor.next()!);
    cursor.expectEnd('a modrdn record');
    return { ...rename, newSuperior };
  }

  private control(field: Field): LdifControl {
    const { type, critical, value } = controlParts(field);
    return value === undefined ? { type, critical } : { type, critical, value: fieldValue(value, this.files) };
  }
}

// ---------------------------------------------------------------- the file

/** The whole-file rules: optional `version: 1` first, and content and change records not mixed. */
class FileState {
  private started = false;
  private contentFile: boolean | undefined;

  /** Drops a leading `version:` line from the first record (checking it says 1). */
  withoutVersion(fields: Field[]): Field[] {
    if (this.started) return fields;
    this.started = true;
    const first = fields[0]!;
    if (first.lower !== 'version') return fields;
    const version = textOf(first);
    if (version !== '1') throw new LdifError(first.line, `unsupported LDIF version ${quoteLine(version)} (only version 1 exists)`);
    return fields.slice(1);
  }

  check(record: LdifRecord): void {
    const content = record.kind === 'entry';
    this.contentFile ??= content;
    if (content !== this.contentFile) {
      const [found, expected] = content ? ['a content record', 'change records'] : ['a change record', 'content records'];
      throw new LdifError(record.line, `${found} in a file of ${expected} (RFC 2849 does not allow mixing them)`);
    }
  }
}

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
  private readonly file = new FileState();
  private lineNumber = 0;

  constructor(private readonly maxRecordBytes: number) {
    this.grouper = new RecordGrouper(maxRecordBytes);
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
    return this.grouper.push(this.lineNumber === 1 ? withoutBom(line) : line, this.lineNumber);
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
  const stream = new LdifStream(maxRecordBytes);
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
