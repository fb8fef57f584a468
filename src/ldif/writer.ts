/**
 * LDIF writer (RFC 2849) for content records.
 *
 * A file is `formatLdifHeader()` followed, for each entry, by a blank line and
 * `formatLdifEntry(entry)`:
 *
 *     version: 1
 *
 *     dn: cn=a,dc=example
 *     cn: a
 *
 *     dn: cn=b,dc=example
 *     cn: b
 *
 * `formatLdif(entries)` does exactly that for a list. Whatever the values, readLdif gives back
 * the same dn and the same bytes.
 */
import { ATTRIBUTE_DESCRIPTION } from './fields.js';

export interface LdifEntryInput {
  readonly dn: string;
  readonly attributes: readonly { readonly name: string; readonly values: readonly Buffer[] }[];
}

export interface FormatLdifOptions {
  /** Lower-case attribute types whose values are always written base64 (`name:: ...`). Default: userpassword. */
  readonly base64Attributes?: ReadonlySet<string>;
  /** Longest physical line; longer lines are folded. 0 turns folding off. Default 76. */
  readonly foldAt?: number;
}

const DEFAULT_BASE64_ATTRIBUTES: ReadonlySet<string> = new Set(['userpassword']);
const DEFAULT_FOLD_AT = 76;

/** RFC 2849 SAFE-STRING (bytes 0x01-0x7F but LF and CR, not starting with space, ':' or '<'), not ending in space. */
export function isSafeString(value: Uint8Array): boolean {
  if (value.length === 0) return true;
  const first = value[0]!;
  if (first === 0x20 || first === 0x3a || first === 0x3c || value[value.length - 1] === 0x20) return false;
  for (const byte of value) {
    if (byte === 0 || byte === 0x0a || byte === 0x0d || byte > 0x7f) return false;
  }
  return true;
}

/** `name: value` or `name:: base64`, unfolded. An empty plain value is written `name:`. */
function attributeLine(name: string, value: Buffer, forceBase64: boolean): string {
  if (forceBase64 || !isSafeString(value)) return `${name}:: ${value.toString('base64')}`;
  return value.length === 0 ? `${name}:` : `${name}: ${value.toString('latin1')}`;
}

/** Folds an ASCII line so that no physical line is longer than foldAt; continuations start with one space. */
function foldLine(line: string, foldAt: number): string {
  if (foldAt === 0 || line.length <= foldAt) return line;
  const pieces = [line.slice(0, foldAt)];
  for (let at = foldAt; at < line.length; at += foldAt - 1) pieces.push(line.slice(at, at + foldAt - 1));
  return pieces.join('\n ');
}

function checkFoldAt(foldAt: number): void {
  if (foldAt !== 0 && !(Number.isInteger(foldAt) && foldAt >= 2)) {
    throw new RangeError(`foldAt must be 0 (no folding) or an integer of at least 2, got ${foldAt}`);
  }
}

function mustBase64(name: string, base64Attributes: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  const semicolon = lower.indexOf(';');
  return base64Attributes.has(lower) || (semicolon !== -1 && base64Attributes.has(lower.slice(0, semicolon)));
}

/**
 * One content record: its `dn:` line and one line per value, each ending in `\n` (no blank line
 * after it). The dn must be well-formed Unicode; names must be attribute descriptions
 * (`cn`, `cn;lang-en`, `2.5.4.3`); an entry needs at least one value.
 */
export function formatLdifEntry(entry: LdifEntryInput, options: FormatLdifOptions = {}): string {
  const foldAt = options.foldAt ?? DEFAULT_FOLD_AT;
  const base64Attributes = options.base64Attributes ?? DEFAULT_BASE64_ATTRIBUTES;
  checkFoldAt(foldAt);
  const lines = [attributeLine('dn', Buffer.from(entry.dn, 'utf8'), false)];
  for (const { name, values } of entry.attributes) {
    if (!ATTRIBUTE_DESCRIPTION.test(name)) throw new TypeError(`${JSON.stringify(name)} is not an attribute description`);
    const forceBase64 = mustBase64(name, base64Attributes);
    for (const value of values) lines.push(attributeLine(name, value, forceBase64));
  }
  if (lines.length === 1) throw new TypeError(`entry ${JSON.stringify(entry.dn)} has no attribute values to write`);
  return `${lines.map((line) => foldLine(line, foldAt)).join('\n')}\n`;
}

/** The start of an LDIF file: `version: 1\n`. Each record then follows a blank line. */
export function formatLdifHeader(): string {
  return 'version: 1\n';
}

/** A whole LDIF file: the header, then each entry after a blank line. */
export function formatLdif(entries: Iterable<LdifEntryInput>, options: FormatLdifOptions = {}): string {
  const parts = [formatLdifHeader()];
  for (const entry of entries) parts.push('\n', formatLdifEntry(entry, options));
  return parts.join('');
}

/**
 * Records as LDIF text, a record at a time, separated by blank lines, with no `version: 1` line
 * (slapadd refuses one; our reader and ldapadd take files with or without it).
 */
export async function* formatLdifRecords(
  entries: AsyncIterable<LdifEntryInput> | Iterable<LdifEntryInput>, options: FormatLdifOptions = {},
): AsyncGenerator<string> {
  let separator = '';
  for await (const entry of entries) {
    yield `${separator}${formatLdifEntry(entry, options)}`;
    separator = '\n';
  }
}
