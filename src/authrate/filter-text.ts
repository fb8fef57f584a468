/**
 * A search filter's string form (RFC 4515) to the BER a SearchRequest carries (RFC 4511 4.5.1.7),
 * for the load tools' filter templates. Values are octets with `\XX` escapes decoded (`\28` is
 * "(", `\2a` "*", `\5c` "\"); attribute descriptions may carry options (`cn;lang-en`) or be OIDs
 * (`2.5.4.3`); a filter given without its outer parentheses (`uid=x`) is taken, as ldapsearch
 * takes it. Anything else throws FilterSyntaxError, saying where. Pure.
 */

/** The text is not a filter. */
export class FilterSyntaxError extends Error {
  override name = 'FilterSyntaxError';
}

const DESCRIPTION = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)*)(?:;[A-Za-z0-9-]+)*$/;
const RULE = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)*)$/;

function length(bytes: number): Buffer {
  if (bytes < 0x80) return Buffer.from([bytes]);
  const out: number[] = [];
  for (let rest = bytes; rest > 0; rest = Math.floor(rest / 256)) out.unshift(rest & 0xff);
  return Buffer.from([0x80 | out.length, ...out]);
}

const tlv = (tag: number, content: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), length(content.length), content]);
const text = (tag: number, value: string): Buffer => tlv(tag, Buffer.from(value, 'utf8'));

/** An assertion value with its escapes decoded; '(' ')' '*' and a lone '\' are not allowed in it. */
function value(raw: string, whole: string): Buffer {
  const bytes: Buffer[] = [];
  let plain = '';
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i]!;
    if (char === '(' || char === ')' || char === '*') throw new FilterSyntaxError(`"${char}" in a value must be escaped (\\${char.charCodeAt(0).toString(16)}) in ${whole}`);
    if (char !== '\\') {
      plain += char;
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new FilterSyntaxError(`"\\${hex}" is not an escape (a backslash and two hex digits) in ${whole}`);
    bytes.push(Buffer.from(plain, 'utf8'), Buffer.from([Number.parseInt(hex, 16)]));
    plain = '';
    i += 2;
  }
  bytes.push(Buffer.from(plain, 'utf8'));
  return Buffer.concat(bytes);
}

function description(name: string, whole: string): string {
  if (!DESCRIPTION.test(name)) throw new FilterSyntaxError(`"${name}" is not an attribute description in ${whole}`);
  return name;
}

/** `attr=...` with '*': substrings ([0] initial, [1] any, [2] final), or presence for `attr=*`. */
function substringsOrPresent(attribute: string, raw: string, whole: string): Buffer {
  if (raw === '*') return text(0x87, attribute);
  const parts = raw.split('*');
  const pieces: Buffer[] = [];
  parts.forEach((part, index) => {
    if (part === '') {
      if (index > 0 && index < parts.length - 1) throw new FilterSyntaxError(`"**" in ${whole}`);
      return;
    }
    const tag = index === 0 ? 0x80 : index === parts.length - 1 ? 0x82 : 0x81;
    pieces.push(tlv(tag, value(part, whole)));
  });
  return tlv(0xa4, Buffer.concat([text(0x04, attribute), tlv(0x30, Buffer.concat(pieces))]));
}

/** `attr:dn:rule:=value`, `attr:=value`, `:rule:=value`, `:dn:rule:=value` (RFC 4515 3). */
function extensible(left: string, raw: string, whole: string): Buffer {
  const parts = left.split(':');
  const attribute = parts[0] === '' ? undefined : description(parts[0]!, whole);
  let rest = parts.slice(1);
  const dnAttributes = rest[0]?.toLowerCase() === 'dn';
  if (dnAttributes) rest = rest.slice(1);
  if (rest.length > 1 || (rest.length === 1 && !RULE.test(rest[0]!))) throw new FilterSyntaxError(`"${left}:=" is not an extensible match in ${whole}`);
  const rule = rest[0];
  if (attribute === undefined && rule === undefined) throw new FilterSyntaxError(`an extensible match needs an attribute or a matching rule in ${whole}`);
  return tlv(0xa9, Buffer.concat([
    ...(rule === undefined ? [] : [text(0x81, rule)]),
    ...(attribute === undefined ? [] : [text(0x82, attribute)]),
    tlv(0x83, value(raw, whole)),
    ...(dnAttributes ? [Buffer.from([0x84, 0x01, 0xff])] : []),
  ]));
}

/** One item: `attr=v`, `attr~=v`, `attr>=v`, `attr<=v`, `attr=*`, substrings, extensible. */
function item(inner: string, whole: string): Buffer {
  const equals = inner.indexOf('=');
  if (equals <= 0 && !inner.startsWith(':')) throw new FilterSyntaxError(`"${inner}" is not a filter item in ${whole}`);
  const left = inner.slice(0, equals);
  const raw = inner.slice(equals + 1);
  if (left.endsWith(':')) return extensible(left.slice(0, -1), raw, whole);
  const operator = left.at(-1);
  if (operator === '~' || operator === '>' || operator === '<') {
    const tag = operator === '~' ? 0xa8 : operator === '>' ? 0xa5 : 0xa6;
    return tlv(tag, Buffer.concat([text(0x04, description(left.slice(0, -1), whole)), tlv(0x04, value(raw, whole))]));
  }
  const attribute = description(left, whole);
  if (raw.includes('*')) return substringsOrPresent(attribute, raw, whole);
  return tlv(0xa3, Buffer.concat([text(0x04, attribute), tlv(0x04, value(raw, whole))]));
}

/** Parses the filter starting at `at` (an opening parenthesis); its BER and where it ends. */
function parse(source: string, at: number): { ber: Buffer; end: number } {
  if (source[at] !== '(') throw new FilterSyntaxError(`"(" expected at offset ${at} of ${source}`);
  const kind = source[at + 1];
  if (kind === '&' || kind === '|') {
    const members: Buffer[] = [];
    let next = at + 2;
    while (source[next] === '(') {
      const member = parse(source, next);
      members.push(member.ber);
      next = member.end;
    }
    if (source[next] !== ')') throw new FilterSyntaxError(`")" expected at offset ${next} of ${source}`);
    return { ber: tlv(kind === '&' ? 0xa0 : 0xa1, Buffer.concat(members)), end: next + 1 };
  }
  if (kind === '!') {
    const inner = parse(source, at + 2);
    if (source[inner.end] !== ')') throw new FilterSyntaxError(`")" expected at offset ${inner.end} of ${source}`);
    return { ber: tlv(0xa2, inner.ber), end: inner.end + 1 };
  }
  const close = source.indexOf(')', at + 1);
  const open = source.indexOf('(', at + 1);
  if (close === -1 || (open !== -1 && open < close)) throw new FilterSyntaxError(`unbalanced parentheses in ${source}`);
  return { ber: item(source.slice(at + 1, close), source), end: close + 1 };
}

/** The BER of a filter in its string form (see the header). */
export function encodeFilterText(filter: string): Buffer {
  const source = filter.startsWith('(') ? filter : `(${filter})`;
  const { ber, end } = parse(source, 0);
  if (end !== source.length) throw new FilterSyntaxError(`text after the filter at offset ${end} of ${source}`);
  return ber;
}
