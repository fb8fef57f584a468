import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatLdifEntry, formatLdifHeader, formatLdif, isSafeString, readLdif, parseLdif, type LdifEntryInput, type LdifRecord,
} from '../../../src/ldif/index.js';
import { SeededRandom } from '../../../src/ldif/random.js';

const entry = (dn: string, ...attributes: [string, ...(string | Buffer)[]][]): LdifEntryInput => ({
  dn,
  attributes: attributes.map(([name, ...values]) => ({ name, values: values.map((v) => (typeof v === 'string' ? Buffer.from(v) : v)) })),
});

const b64 = (text: string | Buffer): string => (typeof text === 'string' ? Buffer.from(text) : text).toString('base64');

describe('formatLdifEntry: plain or base64', () => {
  const CASES: [string, string | Buffer, string][] = [
    ['a SAFE-STRING', 'Barbara Jensen', 'cn: Barbara Jensen'],
    ['the empty value', '', 'cn:'],
    ['inner spaces, colons and "<"', 'a: b <c> d', 'cn: a: b <c> d'],
    ['a leading space', ' x', `cn:: ${b64(' x')}`],
    ['a leading colon', ':x', `cn:: ${b64(':x')}`],
    ['a leading "<"', '<x', `cn:: ${b64('<x')}`],
    ['a trailing space', 'x ', `cn:: ${b64('x ')}`],
    ['a LF inside', 'a\nb', `cn:: ${b64('a\nb')}`],
    ['a CR inside', 'a\rb', `cn:: ${b64('a\rb')}`],
    ['a NUL', 'a\0b', `cn:: ${b64('a\0b')}`],
    ['non-ASCII UTF-8', 'é', `cn:: ${b64('é')}`],
    ['bytes that are not UTF-8', Buffer.from([0xff, 0x41]), 'cn:: /0E='],
    ['a leading "#" (only line starts matter)', '#x', 'cn: #x'],
    ['control characters other than CR, LF, NUL', 'a\tb\x7f', 'cn: a\tb\x7f'],
  ];
  for (const [what, value, line] of CASES) {
    test(what, () => {
      assert.equal(formatLdifEntry(entry('cn=a', ['cn', value])), `dn: cn=a\n${line}\n`);
    });
  }

  test('isSafeString follows RFC 2849 SAFE-STRING, and refuses a trailing space', () => {
    assert.equal(isSafeString(Buffer.from('')), true);
    assert.equal(isSafeString(Buffer.from('abc')), true);
    for (const unsafe of [' a', ':a', '<a', 'a ', 'a\n', 'a\r', 'a\0', 'é']) assert.equal(isSafeString(Buffer.from(unsafe)), false, unsafe);
  });

  test('the dn follows the same rule', () => {
    assert.equal(formatLdifEntry(entry('', ['cn', 'a'])), 'dn:\ncn: a\n');
    assert.equal(formatLdifEntry(entry('ou=営業部,o=Airius', ['ou', 'a'])), 'dn:: b3U95Za25qWt6YOoLG89QWlyaXVz\nou: a\n');
    assert.equal(formatLdifEntry(entry(' cn=a', ['cn', 'a'])), `dn:: ${b64(' cn=a')}\ncn: a\n`);
  });

  test('userPassword is always base64 (any case, with options); base64Attributes replaces the set', () => {
    const e = entry('cn=a', ['userPassword', '{SSHA}abc'], ['USERPASSWORD;x-a', 'p'], ['cn', 'a']);
    assert.equal(formatLdifEntry(e), `dn: cn=a\nuserPassword:: ${b64('{SSHA}abc')}\nUSERPASSWORD;x-a:: ${b64('p')}\ncn: a\n`);
    assert.equal(formatLdifEntry(e, { base64Attributes: new Set(['cn']) }), 'dn: cn=a\nuserPassword: {SSHA}abc\nUSERPASSWORD;x-a: p\ncn:: YQ==\n');
  });

  test('attribute options and numeric OIDs are kept as written', () => {
    assert.equal(formatLdifEntry(entry('cn=a', ['cn;lang-en', 'a', 'b'], ['2.5.4.3', 'c'])), 'dn: cn=a\ncn;lang-en: a\ncn;lang-en: b\n2.5.4.3: c\n');
  });

  test('bad names, entries without values and bad foldAt are refused', () => {
    assert.throws(() => formatLdifEntry(entry('cn=a', ['c n', 'x'])), TypeError);
    assert.throws(() => formatLdifEntry(entry('cn=a', ['cn:', 'x'])), TypeError);
    assert.throws(() => formatLdifEntry(entry('cn=a')), /has no attribute values/);
    assert.throws(() => formatLdifEntry(entry('cn=a', ['cn'])), /has no attribute values/);
    for (const foldAt of [1, -1, 2.5, Number.NaN]) assert.throws(() => formatLdifEntry(entry('cn=a', ['cn', 'a']), { foldAt }), RangeError);
  });
});

describe('formatLdifEntry: folding', () => {
  test('a line of exactly foldAt characters is not folded; one more is', () => {
    const fits = 'x'.repeat(76 - 'cn: '.length);
    assert.equal(formatLdifEntry(entry('cn=a', ['cn', fits])), `dn: cn=a\ncn: ${fits}\n`);
    assert.equal(formatLdifEntry(entry('cn=a', ['cn', `${fits}y`])), `dn: cn=a\ncn: ${fits}\n y\n`);
  });

  test('long lines fold into pieces of foldAt and 1 + (foldAt - 1) characters', () => {
    const value = Array.from({ length: 200 }, (_, i) => String.fromCharCode(0x21 + (i % 90))).join('');
    const text = formatLdifEntry(entry('cn=a', ['description', value]), { foldAt: 20 });
    const lines = text.slice(0, -1).split('\n');
    assert.equal(lines[0], 'dn: cn=a');
    assert.equal(lines[1], `description: ${value.slice(0, 7)}`);
    for (const line of lines.slice(2)) {
      assert.ok(line.startsWith(' ') && line.length <= 20 && line.length >= 2, JSON.stringify(line));
    }
    assert.equal(lines.slice(1).map((line, i) => (i === 0 ? line : line.slice(1))).join(''), `description: ${value}`);
  });

  test('base64 lines fold too, and foldAt 0 turns folding off', () => {
    const value = Buffer.alloc(300, 0xff);
    const folded = formatLdifEntry(entry('cn=a', ['jpegPhoto', value]));
    assert.ok(folded.split('\n').every((line) => line.length <= 76));
    assert.equal(formatLdifEntry(entry('cn=a', ['jpegPhoto', value]), { foldAt: 0 }), `dn: cn=a\njpegPhoto:: ${value.toString('base64')}\n`);
  });

  test('a long dn folds', () => {
    const dn = `cn=${'x'.repeat(100)},dc=example,dc=com`;
    const text = formatLdifEntry(entry(dn, ['cn', 'x']));
    assert.equal(text, `${`dn: ${dn}`.slice(0, 76)}\n ${`dn: ${dn}`.slice(76)}\ncn: x\n`);
  });

  test('folding where a piece starts with a space keeps that space (only the fold space is removed)', async () => {
    const value = `${'a'.repeat(5)}     ${'b'.repeat(5)}`;
    const text = formatLdifEntry(entry('cn=a', ['cn', value]), { foldAt: 9 });
    assert.match(text, /\n {2}/);
    const [record] = await parseLdif(text);
    assert.deepEqual(record!.kind === 'entry' && record!.attributes[0]!.value.toString(), value);
  });
});

describe('formatLdifHeader and formatLdif', () => {
  test('a file is "version: 1", then each record after a blank line', () => {
    assert.equal(formatLdifHeader(), 'version: 1\n');
    const text = formatLdif([entry('cn=a', ['cn', 'a']), entry('cn=b', ['cn', 'b'])]);
    assert.equal(text, 'version: 1\n\ndn: cn=a\ncn: a\n\ndn: cn=b\ncn: b\n');
    assert.equal(formatLdif([]), 'version: 1\n');
  });

  test('the reader reads it back, with the records on the expected lines', async () => {
    const records = await parseLdif(formatLdif([entry('cn=a', ['cn', 'a']), entry('cn=b', ['cn', 'b'])]));
    assert.deepEqual(records.map((r) => [r.kind, r.dn, r.line]), [['entry', 'cn=a', 3], ['entry', 'cn=b', 6]]);
  });
});

// ---------------------------------------------------------------- round trip

/** Repeatable randomness from the project's seeded generator: a number in [0, 1). */
function prng(seed: number): () => number {
  const random = new SeededRandom(String(seed));
  return () => random.next() / 0x1_0000_0000;
}

class RandomEntries {
  constructor(private readonly random: () => number) {}

  int(below: number): number {
    return Math.floor(this.random() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Any well-formed Unicode string, biased toward the characters LDIF treats specially. */
  string(): string {
    const length = this.pick([0, 1, 2, 5, 20, 80, 300]);
    const pieces = [' ', ':', '<', '#', '\n', '\r', '\0', '=', ',', 'a', 'Z', '9', 'é', '営', '🔑', '\u{10FFFF}', '\uFEFF', '\x7f', '\t'];
    let text = '';
    for (let i = 0; i < length; i++) text += this.random() < 0.5 ? this.pick(pieces) : String.fromCodePoint(1 + this.int(0xd7ff));
    return text;
  }

  bytes(length: number, lowest = 0, count = 256): Buffer {
    const bytes = Buffer.alloc(length);
    for (let i = 0; i < length; i++) bytes[i] = lowest + this.int(count);
    return bytes;
  }

  value(): Buffer {
    switch (this.int(6)) {
      case 0: return Buffer.alloc(0);
      case 1: return this.bytes(1 + this.int(100), 0x20, 0x5f); // printable ASCII
      case 2: return Buffer.from(this.string());
      case 3: return this.bytes(this.int(60));
      case 4: return this.bytes(500 + this.int(3000));
      default: return Buffer.from(`${this.pick([' ', ':', '<', '', 'x'])}${'v'.repeat(this.int(90))}${this.pick([' ', '  ', '\r', '\n', '', 'y'])}`);
    }
  }

  name(): string {
    return this.pick(['cn', 'sn', 'description', 'jpegPhoto', 'userPassword', 'cn;lang-en', 'ou;lang-ja;phonetic', '2.5.4.3', 'x-Custom-9;binary']);
  }

  entry(): LdifEntryInput {
    const attributes = Array.from({ length: 1 + this.int(5) }, () => ({
      name: this.name(),
      values: Array.from({ length: 1 + this.int(4) }, () => this.value()),
    }));
    return { dn: this.string(), attributes };
  }
}

/** What the reader should give back for an entry: its dn and one {name, value} per value, in order. */
function expectedRecord(input: LdifEntryInput): Pick<Extract<LdifRecord, { kind: 'entry' }>, 'dn' | 'attributes'> {
  return { dn: input.dn, attributes: input.attributes.flatMap(({ name, values }) => values.map((value) => ({ name, value }))) };
}

async function* randomChunks(data: Buffer, random: () => number): AsyncGenerator<Buffer> {
  for (let at = 0; at < data.length;) {
    const size = 1 + Math.floor(random() * 300);
    yield data.subarray(at, at + size);
    at += size;
  }
}

describe('round trip: readLdif(formatLdifEntry(x)) gives x back byte for byte', () => {
  test('3,000 random entries, random fold widths, read in random chunks', async () => {
    const random = prng(20240601);
    const generator = new RandomEntries(random);
    const entries = Array.from({ length: 3000 }, () => generator.entry());
    const parts = [formatLdifHeader()];
    for (const input of entries) {
      const foldAt = generator.pick([76, 76, 2, 3, 17, 0, 1000]);
      const text = formatLdifEntry(input, { foldAt });
      for (const line of text.slice(0, -1).split('\n')) {
        assert.ok(foldAt === 0 || line.length <= foldAt, `line longer than ${foldAt}: ${line}`);
        assert.ok(/^[\x01-\x09\x0b\x0c\x0e-\x7f]*$/.test(line), `not SAFE-CHARs: ${JSON.stringify(line)}`);
      }
      parts.push('\n', text);
    }
    const ldif = Buffer.from(parts.join(''));
    const records: LdifRecord[] = [];
    for await (const record of readLdif(randomChunks(ldif, random))) records.push(record);
    assert.equal(records.length, entries.length);
    records.forEach((record, i) => {
      assert.equal(record.kind, 'entry');
      const actual = record.kind === 'entry' ? { dn: record.dn, attributes: record.attributes } : undefined;
      assert.deepEqual(actual, expectedRecord(entries[i]!), `entry ${i}`);
    });
  });

  test('with CRLF line endings too', async () => {
    const generator = new RandomEntries(prng(7));
    const entries = Array.from({ length: 300 }, () => generator.entry());
    const records = await parseLdif(formatLdif(entries).replaceAll('\n', '\r\n'));
    assert.deepEqual(records.map((r) => (r.kind === 'entry' ? { dn: r.dn, attributes: r.attributes } : r)), entries.map(expectedRecord));
  });
});
