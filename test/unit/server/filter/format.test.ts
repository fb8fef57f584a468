import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { build, escapeFilterValue, filterToString } from '../../../../src/server/filter/index.js';

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
