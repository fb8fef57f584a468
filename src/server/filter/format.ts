/**
 * A filter as an RFC 4515 string, for logs and as a key: `(&(objectClass=person)(cn=J\2a*))`.
 * Values escape `*`, `(`, `)`, `\`, NUL, control and other non-printable characters, and every
 * non-ASCII byte of a value that is not UTF-8, as `\xx`; unescaping gives back the exact octets,
 * so two different filters never print the same.
 */
import type { Filter } from '../../protocol/filter.js';

const SPECIAL = new Set(['*', '(', ')', '\\']);
const NON_PRINTABLE = /\p{C}/u;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function hex(bytes: Buffer): string {
  return [...bytes].map((byte) => `\\${byte.toString(16).padStart(2, '0')}`).join('');
}

function decodeUtf8(value: Buffer): string | undefined {
  try {
    return utf8.decode(value);
  } catch {
    return undefined;
  }
}

/** An assertion value with RFC 4515 escapes. */
export function escapeFilterValue(value: Buffer): string {
  const text = decodeUtf8(value);
  if (text === undefined) {
    return [...value].map((byte) => (byte >= 0x20 && byte < 0x7f && !SPECIAL.has(String.fromCharCode(byte))
      ? String.fromCharCode(byte) : hex(Buffer.of(byte)))).join('');
  }
  let escaped = '';
  for (const char of text) escaped += SPECIAL.has(char) || NON_PRINTABLE.test(char) ? hex(Buffer.from(char, 'utf8')) : char;
  return escaped;
}

/**
 * An attribute description or rule as written when well formed; anything else (which RFC 4515
 * cannot express) has its odd characters as `\xx`, so a hostile name cannot forge log text.
 */
function name(text: string): string {
  let escaped = '';
  for (const char of text) escaped += /[A-Za-z0-9.;-]/.test(char) ? char : hex(Buffer.from(char, 'utf8'));
  return escaped;
}

function item(attribute: string, operator: string, value: Buffer): string {
  return `(${name(attribute)}${operator}${escapeFilterValue(value)})`;
}

function substrings(filter: Extract<Filter, { type: 'substrings' }>): string {
  const parts = [filter.initial ? escapeFilterValue(filter.initial) : '', ...filter.any.map(escapeFilterValue)];
  parts.push(filter.final ? escapeFilterValue(filter.final) : '');
  return `(${name(filter.attribute)}=${parts.join('*')})`;
}

function extensible(filter: Extract<Filter, { type: 'extensible' }>): string {
  const attribute = filter.attribute === undefined ? '' : name(filter.attribute);
  const dn = filter.dnAttributes ? ':dn' : '';
  const rule = filter.matchingRule === undefined ? '' : `:${name(filter.matchingRule)}`;
  return `(${attribute}${dn}${rule}:=${escapeFilterValue(filter.value)})`;
}

/** filterToString's options: a longer text is cut (ending in "..."); `leaf` rewrites each assertion before it is printed (the access log masks passwords). */
export interface FilterTextOptions {
  readonly maxLength?: number;
  readonly leaf?: (filter: Filter) => Filter;
}

/** The text built so far, which stops taking parts once it is longer than its limit. */
class BoundedText {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  /** Adds `part`; false once the text is over the limit (the caller stops walking the filter). */
  add(part: string): boolean {
    this.parts.push(part);
    this.length += part.length;
    return this.length <= this.limit;
  }

  toString(): string {
    const text = this.parts.join('');
    return text.length > this.limit ? `${text.slice(0, this.limit)}...` : text;
  }
}

const same = (filter: Filter): Filter => filter;

function assertion(filter: Filter): string {
  switch (filter.type) {
    case 'equality': return item(filter.attribute, '=', filter.value);
    case 'approx': return item(filter.attribute, '~=', filter.value);
    case 'greaterOrEqual': return item(filter.attribute, '>=', filter.value);
    case 'lessOrEqual': return item(filter.attribute, '<=', filter.value);
    case 'present': return `(${name(filter.attribute)}=*)`;
    case 'substrings': return substrings(filter);
    case 'extensible': return extensible(filter);
    default: throw new TypeError(`not an assertion: ${filter.type}`);
  }
}

/** Writes `filter` to `out`, stopping as soon as `out` is full (false). */
function write(filter: Filter, out: BoundedText, leaf: (filter: Filter) => Filter): boolean {
  switch (filter.type) {
    case 'and': case 'or': {
      if (!out.add(filter.type === 'and' ? '(&' : '(|')) return false;
      for (const each of filter.filters) if (!write(each, out, leaf)) return false;
      return out.add(')');
    }
    case 'not': return out.add('(!') && write(filter.filter, out, leaf) && out.add(')');
    default: return out.add(assertion(leaf(filter)));
  }
}

/**
 * The filter's text; with `maxLength`, only as much of the filter is read as the cut text
 * needs (a 10,000-term filter's log line costs what its first 512 characters cost).
 */
export function filterToString(filter: Filter, options: FilterTextOptions = {}): string {
  const out = new BoundedText(options.maxLength ?? Infinity);
  write(filter, out, options.leaf ?? same);
  return out.toString();
}
