/**
 * Distinguished names per RFC 4514: parse (with RFC 2253/1779 leniency: spaces around
 * separators, quoted values, ';' between RDNs) and format with escaping: the syntax only. Their
 * normalized form (by each attribute's matching rule, so that `UID=User.1, ou=People,DC=example,dc=com`
 * and `uid=user.1,ou=people,dc=example,dc=com` are the same entry) is in normalize.ts.
 */
import { DirectoryError } from './errors.js';

export interface Ava {
  /** The attribute type as written ('UID', 'cn', '2.5.4.3'). */
  readonly type: string;
  /** The value, unescaped. A '#hex' (BER) value keeps its '#hex' text and sets `hex`. */
  readonly value: string;
  readonly hex?: boolean;
}

export type Rdn = readonly Ava[];
export type Dn = readonly Rdn[];

const TYPE = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*|oid\.[0-9]+(?:\.[0-9]+)*)$/i;

function invalid(text: string, reason: string): DirectoryError {
  return new DirectoryError('invalidDnSyntax', `invalid DN "${text.slice(0, 200)}": ${reason}`);
}

/** A cursor over the DN text; one small function per grammar rule below. */
class Cursor {
  position = 0;
  constructor(readonly text: string) {}
  get done(): boolean { return this.position >= this.text.length; }
  peek(): string { return this.text[this.position] ?? ''; }
  skipSpaces(): void { while (this.peek() === ' ') this.position += 1; }
}

function readType(cursor: Cursor): string {
  cursor.skipSpaces();
  const start = cursor.position;
  while (!cursor.done && !'=,+;'.includes(cursor.peek())) cursor.position += 1;
  const type = cursor.text.slice(start, cursor.position).trim();
  if (cursor.peek() !== '=') throw invalid(cursor.text, `expected "=" after "${type}"`);
  if (!TYPE.test(type)) throw invalid(cursor.text, `"${type}" is not an attribute type`);
  cursor.position += 1;
  return type;
}

function readHexValue(cursor: Cursor): Ava['value'] {
  const start = cursor.position;
  cursor.position += 1;
  while (/[0-9A-Fa-f]/.test(cursor.peek())) cursor.position += 1;
  const hex = cursor.text.slice(start, cursor.position);
  if (hex.length < 3 || hex.length % 2 === 0) throw invalid(cursor.text, `"${hex}" is not a #hexstring`);
  return hex.toLowerCase();
}

function readEscape(cursor: Cursor, bytes: number[]): void {
  const next = cursor.text.slice(cursor.position + 1, cursor.position + 3);
  if (/^[0-9A-Fa-f]{2}$/.test(next)) {
    bytes.push(parseInt(next, 16));
    cursor.position += 3;
    return;
  }
  const char = cursor.text[cursor.position + 1];
  if (char === undefined || !' "#+,;<=>\\'.includes(char)) throw invalid(cursor.text, 'bad escape sequence');
  bytes.push(char.charCodeAt(0));
  cursor.position += 2;
}

function pushChar(cursor: Cursor, bytes: number[]): void {
  const code = cursor.text.codePointAt(cursor.position)!;
  const char = String.fromCodePoint(code);
  bytes.push(...Buffer.from(char, 'utf8'));
  cursor.position += char.length;
}

function decodeUtf8(cursor: Cursor, bytes: number[]): string {
  const buffer = Buffer.from(bytes);
  const text = buffer.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(buffer)) throw invalid(cursor.text, 'an escaped value is not UTF-8');
  return text;
}

function readQuotedValue(cursor: Cursor): string {
  cursor.position += 1;
  const bytes: number[] = [];
  while (cursor.peek() !== '"') {
    if (cursor.done) throw invalid(cursor.text, 'unterminated quoted value');
    if (cursor.peek() === '\\') readEscape(cursor, bytes);
    else pushChar(cursor, bytes);
  }
  cursor.position += 1;
  cursor.skipSpaces();
  return decodeUtf8(cursor, bytes);
}

/** A string value; unescaped trailing spaces are insignificant, escaped ones are kept. */
function readStringValue(cursor: Cursor): string {
  const bytes: number[] = [];
  let significantLength = 0;
  while (!cursor.done && !',+;'.includes(cursor.peek())) {
    if (cursor.peek() === '\\') {
      readEscape(cursor, bytes);
      significantLength = bytes.length;
    } else {
      if (cursor.peek() === '"') throw invalid(cursor.text, 'unescaped \'"\' in a value');
      pushChar(cursor, bytes);
      if (bytes[bytes.length - 1] !== 0x20) significantLength = bytes.length;
    }
  }
  return decodeUtf8(cursor, bytes.slice(0, significantLength));
}

function readAva(cursor: Cursor): Ava {
  const type = readType(cursor);
  cursor.skipSpaces();
  if (cursor.peek() === '#') return { type, value: readHexValue(cursor), hex: true };
  if (cursor.peek() === '"') return { type, value: readQuotedValue(cursor) };
  return { type, value: readStringValue(cursor) };
}

function readRdn(cursor: Cursor): Rdn {
  const avas = [readAva(cursor)];
  cursor.skipSpaces();
  while (cursor.peek() === '+') {
    cursor.position += 1;
    avas.push(readAva(cursor));
    cursor.skipSpaces();
  }
  return avas;
}

/** Characters that need the full parser: escapes, quotes, hex values, multi-valued RDNs, ';'. */
const NEEDS_FULL_PARSER = /[\\"#+;]/;

/** The common case, `uid=user.1,ou=People,dc=example,dc=com`, without the character walk. */
function parsePlainDn(text: string): Dn | undefined {
  const rdns: Ava[][] = [];
  for (const part of text.split(',')) {
    const equals = part.indexOf('=');
    const type = part.slice(0, equals).replace(/^ +| +$/g, '');
    const value = part.slice(equals + 1).replace(/^ +| +$/g, '');
    if (equals === -1 || !TYPE.test(type)) return undefined;
    rdns.push([{ type, value }]);
  }
  return rdns;
}

/**
 * A DN's text cut after its first RDN when that RDN is plain (no escape, quote, hex value, `+` or
 * `;`, so its first comma ends it): the first RDN's text and the parent's. Undefined for any other
 * DN (and one RDN alone): parse it whole. The parent's meaning can then be kept per text, as the
 * DNs that come in bind after bind, or are returned entry after entry, share a few parents.
 */
export function splitPlainFirstRdn(text: string): readonly [first: string, parent: string] | undefined {
  const comma = text.indexOf(',');
  if (comma === -1) return undefined;
  const first = text.slice(0, comma);
  return NEEDS_FULL_PARSER.test(first) ? undefined : [first, text.slice(comma + 1)];
}

/** How long and how deep a DN may be: UTF-8 bytes of its text, and RDNs. */
export interface DnLimits {
  readonly maxBytes: number;
  readonly maxRdns: number;
}

/**
 * The defaults of `serve --max-dn-length` and `--max-dn-rdns`. 8,192 bytes is OpenLDAP's
 * SLAP_LDAPDN_MAXLEN (slapd's dnValidate refuses longer DNs).
 */
export const DEFAULT_DN_LIMITS: DnLimits = { maxBytes: 8192, maxRdns: 64 };

/**
 * No DN beyond these is parsed at all, wherever it comes from (a request, a DN-syntax value, an
 * LDIF file): the work on a DN (parsing, and the keys of its ancestors, which grow with the
 * square of its depth) stays a few milliseconds. The flags may raise the defaults up to here.
 */
export const DN_CEILING: DnLimits = { maxBytes: 65_536, maxRdns: 512 };

/** The RDNs of a DN's text, counted without parsing: separators outside quotes and escapes. */
function countRdns(text: string): number {
  let count = 1;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x5c) i += 1; // '\': the next character is escaped
    else if (char === 0x22) quoted = !quoted;
    else if (!quoted && (char === 0x2c || char === 0x3b)) count += 1;
  }
  return count;
}

/** Why the DN's text is over the limits (checked before it is parsed), or undefined. */
export function dnSizeProblem(text: string, limits: DnLimits): string | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes) return `the DN is too long: ${bytes} bytes, at most ${limits.maxBytes}`;
  const rdns = countRdns(text);
  return rdns > limits.maxRdns ? `the DN has too many RDNs: ${rdns}, at most ${limits.maxRdns}` : undefined;
}

/** Parses a DN; the empty string is the root (zero RDNs). Throws invalidDnSyntax (also beyond DN_CEILING). */
export function parseDn(text: string): Dn {
  const tooLarge = dnSizeProblem(text, DN_CEILING);
  if (tooLarge) throw new DirectoryError('invalidDnSyntax', tooLarge);
  if (text.trim() === '') return [];
  if (!NEEDS_FULL_PARSER.test(text)) {
    const plain = parsePlainDn(text);
    if (plain) return plain;
  }
  const cursor = new Cursor(text);
  const rdns = [readRdn(cursor)];
  while (!cursor.done) {
    if (cursor.peek() !== ',' && cursor.peek() !== ';') throw invalid(text, `unexpected "${cursor.peek()}"`);
    cursor.position += 1;
    rdns.push(readRdn(cursor));
  }
  return rdns;
}

/** A value RFC 4514 leaves as it is: no character to escape, no leading space or '#', no trailing space. */
const NOTHING_TO_ESCAPE = /^(?:[^\x00-\x1f\x7f"+,;<>\\= #][^\x00-\x1f\x7f"+,;<>\\=]*)?$/;

/** RFC 4514 escaping of a value; control characters become \HH so keys never hold them. */
export function escapeValue(value: string): string {
  return NOTHING_TO_ESCAPE.test(value) && !value.endsWith(' ') ? value : escapeEachCharacter(value);
}

/** escapeValue by walking every character (exported for the test that holds the shortcut to it). */
export function escapeEachCharacter(value: string): string {
  let escaped = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) escaped += `\\${code.toString(16).padStart(2, '0')}`;
    else if ('"+,;<>\\='.includes(char)) escaped += `\\${char}`;
    else escaped += char;
  }
  if (escaped.startsWith(' ') || escaped.startsWith('#')) escaped = `\\${escaped}`;
  if (escaped.endsWith(' ') && !escaped.endsWith('\\ ')) escaped = `${escaped.slice(0, -1)}\\ `;
  return escaped;
}

function formatAva(ava: Ava): string {
  return `${ava.type}=${ava.hex ? ava.value : escapeValue(ava.value)}`;
}

export function formatRdn(rdn: Rdn): string {
  return rdn.map(formatAva).join('+');
}

export function formatDn(dn: Dn): string {
  return dn.map(formatRdn).join(',');
}
