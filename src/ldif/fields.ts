/**
 * One logical LDIF line as a field (name, value form and where the value's bytes are), and the
 * values: text, base64, or the contents of a `:<` file URL (read before its record is parsed).
 */
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { LdifError, quoteLine } from './errors.js';
import { errorCode, errorMessage } from '../errors.js';
import { SPACE, HYPHEN, COLON, LESS_THAN, BASE64, CONTROL, UTF8, tooLarge, type LogicalLine, type ValueForm, type Field } from './lines.js';

/** RFC 2849 AttributeDescription: a name or numeric OID, then `;option`s. */
export const ATTRIBUTE_DESCRIPTION = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*)(?:;[A-Za-z0-9-]+)*$/;

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

export function parseField({ line, bytes }: LogicalLine): Field {
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
  const { form, start, end } = valueSpec(bytes, colon + 1);
  return { line, source: bytes, name, lower, form, start, end };
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

export function decodeBase64({ source, start, end, line }: Field): Buffer {
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
export type FileValues = ReadonlyMap<number, Buffer>;
export const NO_FILES: FileValues = new Map();

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

export async function readFileValues(references: readonly Field[], maxBytes: number): Promise<FileValues> {
  const files = new Map<number, Buffer>();
  for (const field of references) files.set(field.line, await readFileValue(field, maxBytes));
  return files;
}

/** A value's bytes: inline ones decoded, `:<` ones from the files read beforehand. */
export function fieldValue(field: Field, files: FileValues): Buffer {
  return field.form === 'url' ? files.get(field.line)! : inlineValue(field);
}

/** A value that must be a UTF-8 string (dn, newrdn, changetype, ...); URLs are not allowed there. */
export function textOf(field: Field): string {
  if (field.form === 'url') throw new LdifError(field.line, `"${field.name}:" cannot take a URL value`);
  const bytes = field.form === 'base64' ? decodeBase64(field) : field.source.subarray(field.start, field.end);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new LdifError(field.line, `the "${field.name}:" value is not valid UTF-8`);
  }
}

/** `control: OID [true|false] [value-spec]` split up; the value (if any) as a field of its own. */
export function controlParts(field: Field): { type: string; critical: boolean; value?: Field } {
  const match = field.form === 'text' ? CONTROL.exec(field.source.toString('latin1', field.start, field.end)) : null;
  if (match === null) {
    throw new LdifError(field.line, `expected "control: OID [true|false] [value]", got ${quoteLine(field.source)}`);
  }
  const parts = { type: match[1]!, critical: match[2] === 'true' };
  const rest = field.start + match[0].length;
  return rest === field.end ? parts : { ...parts, value: { ...field, ...valueSpec(field.source, rest + 1) } };
}

/** The `:<` values of a record (after its dn), including those of its leading control lines. */
export function fileReferences(fields: readonly Field[]): Field[] {
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
