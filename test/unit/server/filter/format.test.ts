import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { build, escapeFilterValue, filterToString } from '../../../../src/server/filter/index.js';
import type { Filter } from '../../../../src/protocol/filter.js';

const { and, or, not, equality, approx, greaterOrEqual, lessOrEqual, present, substrings, extensible } = build;

describe('filterToString (RFC 4515)', () => {
  test('every filter type', () => {
    const filter = and(
      equality('objectClass', 'person'), or(approx('cn', 'jon'), not(present('mail'))),
      greaterOrEqual('uidNumber', '10'), lessOrEqual('uidNumber', '20'),
      substrings('cn', { initial: 'a', any: ['b', 'c'], final: 'd' }), substrings('sn', { any: ['x'] }), substrings('sn', { final: 'y' }),
      extensible('People', { attribute: 'ou', dnAttributes: true }), extensible('x', { rule: '2.5.13.2' }),
      extensible('Foo', { attribute: 'cn', rule: 'caseExactMatch' }),
    );
    assert.equal(filterToString(filter),
      '(&(objectClass=person)(|(cn~=jon)(!(mail=*)))(uidNumber>=10)(uidNumber<=20)(cn=a*b*c*d)(sn=*x*)(sn=*y)'
      + '(ou:dn:=People)(:2.5.13.2:=x)(cn:caseExactMatch:=Foo))');
    assert.equal(filterToString(and()), '(&)');
    assert.equal(filterToString(or()), '(|)');
  });

  test('escapes *, (, ), \\ and NUL; keeps printable UTF-8', () => {
    assert.equal(escapeFilterValue(Buffer.from('a*(b)\\c\0')), 'a\\2a\\28b\\29\\5cc\\00');
    assert.equal(filterToString(equality('cn', 'Lučić ü')), '(cn=Lučić ü)');
    assert.equal(filterToString(substrings('cn', { initial: '*', final: ')' })), '(cn=\\2a*\\29)');
  });

  test('control and other non-printable characters, and non-UTF-8 bytes, as \\xx', () => {
    assert.equal(escapeFilterValue(Buffer.from('a\nb\x7f\u200b\ufeff')), 'a\\0ab\\7f\\e2\\80\\8b\\ef\\bb\\bf');
    assert.equal(escapeFilterValue(Buffer.from([0x41, 0xff, 0xc3, 0x28, 0x2a])), 'A\\ff\\c3\\28\\2a');
    assert.equal(filterToString(equality('userPassword', Buffer.from([0x00, 0x80]))), '(userPassword=\\00\\80)');
  });

  test('odd characters in attribute descriptions and rule names cannot forge text', () => {
    assert.equal(filterToString(equality('cn)(uid=*', 'x')), '(cn\\29\\28uid\\3d\\2a=x)');
    assert.equal(filterToString(extensible('x', { rule: 'a:b' })), '(:a\\3ab:=x)');
  });
});

describe('filterToString with maxLength', () => {
  /** An or of `terms` substring assertions, counting how many of them were read. */
  function countedOr(terms: number): { filter: Filter; read: () => number } {
    let read = 0;
    const filters = Array.from({ length: terms }, (_, i) => {
      const leaf = substrings('description', { any: [`q${i}`] });
      return Object.defineProperty({ ...leaf }, 'type', { get: () => { read++; return leaf.type; }, enumerable: true });
    });
    return { filter: or(...filters), read: () => read };
  }

  test('cuts the text after maxLength characters with "...", and reads only the part of the filter it prints', () => {
    const { filter, read } = countedOr(9999);
    const full = filterToString(filter);
    const before = read();
    const cut = filterToString(filter, { maxLength: 512 });
    assert.equal(cut, `${full.slice(0, 512)}...`);
    assert.ok(read() - before < 100, `read ${read() - before} of 9,999 terms`);
  });

  test('a text within maxLength is whole; leaf rewrites each assertion', () => {
    const filter = and(equality('cn', 'a'), not(present('mail')));
    assert.equal(filterToString(filter, { maxLength: 25 }), '(&(cn=a)(!(mail=*)))');
    assert.equal(filterToString(filter, { maxLength: 10 }), '(&(cn=a)(!...');
    const upper = (leaf: Filter): Filter => (leaf.type === 'equality' ? { ...leaf, value: Buffer.from('X') } : leaf);
    assert.equal(filterToString(filter, { leaf: upper }), '(&(cn=X)(!(mail=*)))');
  });
});
