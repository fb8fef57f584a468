/**
 * Streaming LDIF reader (RFC 2849).
 *
 * Bytes flow through four small stages, one record in memory at a time:
 *   chunks -> ChunkEncoder (strings to UTF-8 bytes)
 *          -> LineSplitter (physical lines, split on LF, CR of CRLF removed)
 *          -> RecordGrouper (comments dropped, folded lines joined, blank lines end a record)
 *          -> RecordParser (fields, values, one LdifRecord per group)
 * Lines are split as bytes and decoded per line, so a multi-byte UTF-8 character split across
 * chunks is never corrupted.
 */
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { LdifError, quoteLine } from './errors.js';
import type { LdifChange, LdifControl, LdifRecord, LdifValue } from './types.js';

export interface ReadLdifOptions {
  /** Largest record (its lines' bytes, and any one `:<` file) accepted. Default 64 MiB. */
  readonly maxRecordBytes?: number;
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

/** `name: value`, `name:: base64` or `name:< url`; `raw` is what follows the FILL. A `-` line has name '-'. */
interface Field {
  readonly line: number;
  readonly name: string;
  readonly lower: string;
  readonly form: ValueForm;
  readonly raw: Buffer;
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
  /** Bytes held for the current record, and the line it started on. */
  bytes = 0;
  firstLine = 0;

  constructor(private readonly maxRecordBytes: number) {}

  /** Takes one physical line; returns the finished record when the line ends one. */
  push(line: Buffer, lineNumber: number): LogicalLine[] | undefined {
    if (line.length === 0) return this.finish();
    const first = line[0];
    if (first === SPACE) this.continueLine(line, lineNumber);
    else if (first === HASH) this.startComment();
    else this.startLine(line, lineNumber);
    return undefined;
  }

  /** Ends the current record, if any. */
  finish(): LogicalLine[] | undefined {
    this.endLine();
    this.inComment = false;
    if (this.lines.length === 0) return undefined;
    const record = this.lines;
    this.lines = [];
    this.bytes = 0;
    this.firstLine = 0;
    return record;
  }

  private continueLine(line: Buffer, lineNumber: number): void {
    if (this.inComment) return;
    if (this.parts.length === 0) throw new LdifError(lineNumber, 'a continuation line cannot start a record');
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

/** The value after `name:` (at = index just past that colon): its form and its bytes after the FILL. */
function valueSpec(bytes: Buffer, at: number): { form: ValueForm; raw: Buffer } {
  let form: ValueForm = 'text';
  if (bytes[at] === COLON) form = 'base64';
  else if (bytes[at] === LESS_THAN) form = 'url';
  if (form !== 'text') at++;
  while (bytes[at] === SPACE) at++;
  let end = bytes.length;
  if (form !== 'text') while (end > at && bytes[end - 1] === SPACE) end--;
  return { form, raw: bytes.subarray(at, end) };
}

function isSeparator(bytes: Buffer): boolean {
  if (bytes[0] !== HYPHEN) return false;
  for (let i = 1; i < bytes.length; i++) if (bytes[i] !== SPACE) return false;
  return true;
}

function parseField({ line, bytes }: LogicalLine): Field {
  const colon = bytes.indexOf(COLON);
  if (colon === -1) {
    if (isSeparator(bytes)) return { line, name: '-', lower: '-', form: 'text', raw: EMPTY };
    throw new LdifError(line, `expected "attribute: value", got ${quoteLine(bytes)}`);
  }
  const name = bytes.toString('latin1', 0, colon);
  if (!ATTRIBUTE_DESCRIPTION.test(name)) {
    throw new LdifError(line, `expected "attribute: value", got ${quoteLine(bytes)} (${quoteLine(name)} is not an attribute description)`);
  }
  return { line, name, lower: name.toLowerCase(), ...valueSpec(bytes, colon + 1) };
}

function decodeBase64(raw: Buffer, line: number): Buffer {
  const text = raw.toString('latin1');
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new LdifError(line, 'invalid base64 value');
  return Buffer.from(text, 'base64');
}

/** A `text` or `base64` value as a fresh Buffer (not a view of the input chunk). */
function inlineValue(field: Field): Buffer {
  return field.form === 'base64' ? decodeBase64(field.raw, field.line) : Buffer.from(field.raw);
}

function filePathOf(url: string, line: number): string {
  if (!/^file:\/\//i.test(url)) throw new LdifError(line, `only file:// URLs are supported, got ${quoteLine(url)}`);
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new LdifError(line, `invalid file URL ${quoteLine(url)}: ${(error as Error).message}`);
  }
}

async function readUrlValue(field: Field, maxBytes: number): Promise<Buffer> {
  const url = field.raw.toString('utf8');
  const path = filePathOf(url, field.line);
  try {
    if ((await stat(path)).size > maxBytes) throw tooLarge(field.line, maxBytes);
    return await readFile(path);
  } catch (error) {
    if (error instanceof LdifError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    throw new LdifError(field.line, `cannot read ${url}: ${code ?? message}`);
  }
}

/** A value that must be a UTF-8 string (dn, newrdn, changetype, ...); URLs are not allowed there. */
function textOf(field: Field): string {
  if (field.form === 'url') throw new LdifError(field.line, `"${field.name}:" cannot take a URL value`);
  const bytes = field.form === 'base64' ? decodeBase64(field.raw, field.line) : field.raw;
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new LdifError(field.line, `the "${field.name}:" value is not valid UTF-8`);
  }
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

/** Turns one record's logical lines into an LdifRecord. */
class RecordParser {
  constructor(private readonly maxRecordBytes: number) {}

  async parse(lines: readonly LogicalLine[]): Promise<LdifRecord> {
    const cursor = new FieldCursor(lines.map(parseField));
    const dnField = cursor.next()!;
    if (dnField.lower !== 'dn') {
      throw new LdifError(dnField.line, `a record must start with "dn:", got ${quoteLine(lines[0]!.bytes)}`);
    }
    const controls: LdifControl[] = [];
    let lastControl: Field | undefined;
    while (cursor.nextIs('control')) {
      lastControl = cursor.next()!;
      controls.push(await this.control(lastControl));
    }
    const head: RecordHead = { dn: textOf(dnField), line: dnField.line, controls };
    if (cursor.nextIs('changetype')) return this.change(head, cursor);
    if (lastControl) throw new LdifError(lastControl.line, '"control:" lines must be followed by "changetype:"');
    return { kind: 'entry', ...head, attributes: await this.attributes(cursor, dnField.line) };
  }

  private async change(head: RecordHead, cursor: FieldCursor): Promise<LdifRecord> {
    const typeField = cursor.next()!;
    const type = textOf(typeField);
    switch (type.toLowerCase()) {
      case 'add':
        return { kind: 'add', ...head, attributes: await this.attributes(cursor, typeField.line) };
      case 'delete':
        cursor.expectEnd('a delete record');
        return { kind: 'delete', ...head };
      case 'modify':
        return { kind: 'modify', ...head, changes: await this.changes(cursor) };
      case 'modrdn':
      case 'moddn':
        return { kind: 'modrdn', ...head, ...this.rename(cursor, typeField.line) };
      default:
        throw new LdifError(typeField.line, `changetype ${quoteLine(type)} is not add, delete, modify, modrdn or moddn`);
    }
  }

  private async value(field: Field): Promise<Buffer> {
    return field.form === 'url' ? readUrlValue(field, this.maxRecordBytes) : inlineValue(field);
  }

  private async attributes(cursor: FieldCursor, line: number): Promise<LdifValue[]> {
    const attributes: LdifValue[] = [];
    for (let field = cursor.next(); field !== undefined; field = cursor.next()) {
      if (field.name === '-') throw new LdifError(field.line, 'expected "attribute: value", got "-"');
      const value = field.form === 'url' ? await this.value(field) : inlineValue(field);
      attributes.push({ name: field.name, value });
    }
    if (attributes.length === 0) throw new LdifError(line, 'the record has no "attribute: value" lines');
    return attributes;
  }

  private async changes(cursor: FieldCursor): Promise<LdifChange[]> {
    const changes: LdifChange[] = [];
    for (let field = cursor.next(); field !== undefined; field = cursor.next()) {
      changes.push(await this.modification(field, cursor));
    }
    return changes;
  }

  /** One `op: attribute` section; its values must name the same attribute; `-` (or the record's end) ends it. */
  private async modification(head: Field, cursor: FieldCursor): Promise<LdifChange> {
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
      values.push(field.form === 'url' ? await this.value(field) : inlineValue(field));
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

  /** `control: OID [true|false] [value-spec]`. */
  private async control(field: Field): Promise<LdifControl> {
    const match = field.form === 'text' ? CONTROL.exec(field.raw.toString('latin1')) : null;
    if (match === null) {
      throw new LdifError(field.line, `expected "control: OID [true|false] [value]", got ${quoteLine(field.raw)}`);
    }
    const control = { type: match[1]!, critical: match[2] === 'true' };
    const rest = field.raw.subarray(match[0].length);
    if (rest.length === 0) return control;
    return { ...control, value: await this.value({ ...field, ...valueSpec(rest, 1) }) };
  }
}

// ---------------------------------------------------------------- the file

/** The whole-file rules: optional `version: 1` first, and content and change records not mixed. */
class FileState {
  private started = false;
  private contentFile: boolean | undefined;

  /** Drops a leading `version:` line from the first record (checking it says 1). */
  withoutVersion(lines: LogicalLine[]): LogicalLine[] {
    if (this.started) return lines;
    this.started = true;
    const first = parseField(lines[0]!);
    if (first.lower !== 'version') return lines;
    const version = textOf(first);
    if (version !== '1') throw new LdifError(first.line, `unsupported LDIF version ${quoteLine(version)} (only version 1 exists)`);
    return lines.slice(1);
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

/** All the stages for one input. */
class LdifStream {
  private readonly encoder = new ChunkEncoder();
  private readonly splitter = new LineSplitter();
  private readonly grouper: RecordGrouper;
  private readonly parser: RecordParser;
  private readonly file = new FileState();
  private lineNumber = 0;

  constructor(private readonly maxRecordBytes: number) {
    this.grouper = new RecordGrouper(maxRecordBytes);
    this.parser = new RecordParser(maxRecordBytes);
  }

  /** The records that this chunk completes (as line groups). */
  *groups(chunk: Buffer | Uint8Array | string): Generator<LogicalLine[]> {
    for (const line of this.splitter.split(this.encoder.encode(chunk))) {
      const group = this.push(line);
      if (group !== undefined) yield group;
    }
    this.checkPending();
  }

  *finish(): Generator<LogicalLine[]> {
    for (const line of this.splitter.split(this.encoder.finish())) {
      const group = this.push(line);
      if (group !== undefined) yield group;
    }
    const last = this.splitter.finish();
    const group = last === undefined ? undefined : this.push(last);
    if (group !== undefined) yield group;
    const rest = this.grouper.finish();
    if (rest !== undefined) yield rest;
  }

  /** The record for a group, or undefined for a group that only held `version: 1`. */
  async record(group: LogicalLine[]): Promise<LdifRecord | undefined> {
    const lines = this.file.withoutVersion(group);
    if (lines.length === 0) return undefined;
    const record = await this.parser.parse(lines);
    this.file.check(record);
    return record;
  }

  private push(line: Buffer): LogicalLine[] | undefined {
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

/**
 * Reads LDIF records one at a time from chunks of bytes (or strings). Holds one record in memory;
 * a record above `maxRecordBytes` is an LdifError. Every problem is an LdifError naming its line.
 */
export async function* readLdif(
  input: AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>,
  options: ReadLdifOptions = {},
): AsyncGenerator<LdifRecord> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  if (!(maxRecordBytes > 0)) throw new RangeError('maxRecordBytes must be a positive number');
  const stream = new LdifStream(maxRecordBytes);
  for await (const chunk of input) {
    for (const group of stream.groups(chunk)) {
      const record = await stream.record(group);
      if (record !== undefined) yield record;
    }
  }
  for (const group of stream.finish()) {
    const record = await stream.record(group);
    if (record !== undefined) yield record;
  }
}

/** All records of an LDIF text, for tests and small inputs. */
export async function parseLdif(text: string, options: ReadLdifOptions = {}): Promise<LdifRecord[]> {
  const records: LdifRecord[] = [];
  for await (const record of readLdif([text], options)) records.push(record);
  return records;
}
