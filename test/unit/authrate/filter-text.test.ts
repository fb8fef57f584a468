/** The load tools' filter strings (src/authrate/filter-text.ts): RFC 4515 to BER, read back by the server's own decoder. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import filters from '@ldapjs/filter';
import { encodeFilterText, FilterSyntaxError } from '../../../src/authrate/filter-text.js';
import { decodeFilter } from '../../../src/protocol/decode-filter.js';
import { BerInput } from '../../../src/protocol/reader.js';
import { filterToString } from '../../../src/server/filter/format.js';

const readBack = (text: string): string => filterToString(decodeFilter(new BerInput(encodeFilterText(text))));

test('filters without escapes: the same BER as @ldapjs/filter gives', () => {
  for (const text of ['(uid=user.1)', '(&(objectClass=person)(|(cn=a*)(sn=*b*c)(mail=*)))', '(!(uid=x))', '(uidNumber>=10)', '(uidNumber<=10)', '(cn~=smith)', '(cn=a*b*c*d)']) {
    assert.deepEqual(encodeFilterText(text), filters.parseString(text).toBer().buffer, text);
  }
});

test('escapes are decoded into the value\'s octets; options, OIDs and extensible matches are taken (review 2026-12-08: \\30 went out as "\\30")', () => {
  const value = (text: string) => {
    const filter = decodeFilter(new BerInput(encodeFilterText(text)));
    return 'value' in filter ? filter.value.toString('latin1') : undefined;
  };
  assert.equal(value('(uid=user.1\\30)'), 'user.10');
  assert.equal(value('(cn=Smith \\28Jr.\\29)'), 'Smith (Jr.)');
  assert.equal(value('(cn=a\\2ab\\5cc)'), 'a*b\\c');
  assert.equal(value('(cn=caf\\c3\\a9)'), Buffer.from('café').toString('latin1'));
  assert.equal(readBack('(cn;lang-en=x)'), '(cn;lang-en=x)');
  assert.equal(readBack('(2.5.4.3=x)'), '(2.5.4.3=x)');
  assert.equal(readBack('(uid:caseExactMatch:=User.5)'), '(uid:caseExactMatch:=User.5)');
  assert.equal(readBack('(ou:dn:=People)'), '(ou:dn:=People)');
  assert.equal(readBack('(:dn:2.5.13.2:=x)'), '(:dn:2.5.13.2:=x)');
  assert.equal(readBack('uid=x'), '(uid=x)', 'without the outer parentheses, as ldapsearch takes it');
  assert.equal(readBack('(cn=a\\2a*)'), '(cn=a\\2a*)');
});

test('what is no filter throws FilterSyntaxError, saying what', () => {
  for (const text of ['(cn=Smith (Jr.))', '(uid=a\\zz)', '(uid=a\\3)', '(&(uid=a)', '(uid=a))', '((uid=a)', '(=a)', '(c n=a)', '(uid=a**b)', '(:=x)', '(uid:a:b:=x)', '']) {
    assert.throws(() => encodeFilterText(text), FilterSyntaxError, text);
  }
});
