/**
 * The syntax checks of src/store/schema/syntaxes.ts look at a short ASCII value byte by byte
 * before any call into Node: every answer must be the one the general rule gives (valid UTF-8,
 * no U+FFFD, then the syntax's pattern), for short and long values, ASCII or not, valid or not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { BUILTIN_SYNTAXES } from '../../../src/store/schema/syntaxes.js';

const LDAP = '1.3.6.1.4.1.1466.115.121.1.';
const REPLACEMENT = Buffer.from('\uFFFD');

/** The value's text under the general rule, or undefined. */
const text = (value: Buffer): string | undefined => (isUtf8(value) && value.indexOf(REPLACEMENT) === -1 ? value.toString('utf8') : undefined);

const PATTERNS: Record<string, RegExp> = {
  7: /^(TRUE|FALSE)$/,
  11: /^[A-Za-z0-9'()+,\-./:? =]{2}$/,
  27: /^-?(?:0|[1-9][0-9]*)$/,
  36: /^[0-9 ]+$/,
  44: /^[A-Za-z0-9'()+,\-./:? =]+$/,
  50: /^[A-Za-z0-9'()+,\-./:? =]+$/,
};

const expected: Record<string, (value: Buffer) => boolean> = {
  15: (value) => value.length > 0 && text(value) !== undefined,
  41: (value) => value.length > 0 && text(value) !== undefined,
  26: (value) => value.every((byte) => byte < 0x80),
  ...Object.fromEntries(Object.entries(PATTERNS).map(([oid, pattern]) => [oid, (value: Buffer) => pattern.test(text(value) ?? '\0')])),
};

/** A deterministic stream of values: every length up to 300, from alphabets that cross each rule's edges. */
function* values(): Generator<Buffer> {
  const alphabets = [
    Buffer.from('0123456789 '), Buffer.from('TRUEFALSE'), Buffer.from("Ab9'()+,-./:? ="), Buffer.from('abc\x00\x1f\x7f'),
    Buffer.from('é日\uFFFD', 'utf8'), Buffer.from([0x80, 0xbf, 0xc3, 0xe6, 0xff, 0x41]),
  ];
  let seed = 7;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  for (let length = 0; length <= 300; length++) {
    for (const alphabet of alphabets) {
      yield Buffer.from(Array.from({ length }, () => alphabet[next() % alphabet.length]!));
    }
  }
  for (const fixed of ['TRUE', 'FALSE', '-0', '-12', '007', 'US', 'u', '+1 655 496 5904', 'Cir Haith$27925 Lake Street', '\uFFFD', 'é']) yield Buffer.from(fixed);
}

test('every checked syntax answers as the general rule does', () => {
  let compared = 0;
  for (const [oid, rule] of Object.entries(expected)) {
    const check = BUILTIN_SYNTAXES.get(`${LDAP}${oid}`)!.check!;
    for (const value of values()) {
      assert.equal(check(value), rule(value), `syntax ${oid}, value ${value.toString('hex')}`);
      compared++;
    }
  }
  assert.equal(compared, Object.keys(expected).length * (301 * 6 + 11));
});
