import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { escapeValue, formatDn, normalizeDn, parseDn, dnSizeProblem, DEFAULT_DN_LIMITS, DN_CEILING, DirectoryError } from '../../../src/store/index.js';
import { escapeEachCharacter } from '../../../src/store/dn.js';

describe('DN parsing (RFC 4514)', () => {
  test('types and values as written, values unescaped', () => {
    assert.deepEqual(parseDn('UID=User.1, ou=People,DC=example,dc=com'), [
      [{ type: 'UID', value: 'User.1' }], [{ type: 'ou', value: 'People' }],
      [{ type: 'DC', value: 'example' }], [{ type: 'dc', value: 'com' }],
    ]);
  });

  test('the empty DN is the root', () => {
    assert.deepEqual(parseDn(''), []);
  });

  test('RFC 4514 section 4 examples', () => {
    assert.deepEqual(parseDn('CN=Steve Kille,O=Isode Limited,C=GB').map((rdn) => rdn[0]!.value), ['Steve Kille', 'Isode Limited', 'GB']);
    assert.deepEqual(parseDn('OU=Sales+CN=J.  Smith,DC=example,DC=net')[0], [
      { type: 'OU', value: 'Sales' }, { type: 'CN', value: 'J.  Smith' },
    ]);
    assert.equal(parseDn('CN=James \\"Jim\\" Smith\\, III,DC=example,DC=net')[0]![0]!.value, 'James "Jim" Smith, III');
    assert.equal(parseDn('CN=Before\\0dAfter,DC=example,DC=net')[0]![0]!.value, 'Before\rAfter');
    assert.deepEqual(parseDn('1.3.6.1.4.1.1466.0=#04024869')[0]![0], { type: '1.3.6.1.4.1.1466.0', value: '#04024869', hex: true });
    assert.equal(parseDn('CN=Lu\\C4\\8Di\\C4\\87')[0]![0]!.value, 'Lučić');
  });

  test('escaped specials, leading #, and leading/trailing spaces', () => {
    assert.equal(parseDn('cn=\\#hash\\+plus\\;semi\\<\\>\\=\\\\')[0]![0]!.value, '#hash+plus;semi<>=\\');
    assert.equal(parseDn('cn=\\ lead and trail\\ ,o=x')[0]![0]!.value, ' lead and trail ');
    assert.equal(parseDn('cn=trailing   ,o=x')[0]![0]!.value, 'trailing');
  });

  test('"=" may stand unescaped in a value (RFC 4514 stringchar)', () => {
    assert.equal(parseDn('cn=a=b,o=x')[0]![0]!.value, 'a=b');
  });

  test('legacy forms: quoted values, ";" between RDNs, spaces around "="', () => {
    assert.equal(parseDn('cn="Smith, John",o=x')[0]![0]!.value, 'Smith, John');
    assert.equal(parseDn('cn = a ; o = b').length, 2);
  });

  test('malformed DNs are invalidDnSyntax (34)', () => {
    for (const bad of ['cn', 'cn=a,', '=a', 'c n=a', 'cn=a\\', 'cn=a\\zz', 'cn=#abc', 'cn="open', 'cn=a"b', 'cn=\\ff\\fe']) {
      assert.throws(() => parseDn(bad), (error: unknown) => error instanceof DirectoryError && error.code === 34, bad);
    }
  });
});

describe('DN formatting and normalization', () => {
  test('escaping round-trips', () => {
    for (const value of [' ', '  ', 'a,b', ' lead', 'trail ', '#x', 'q"uote', 'back\\slash', 'plus+', 'ctl\u0001', 'é 日本']) {
      const dn = `cn=${escapeValue(value)},o=x`;
      assert.equal(parseDn(dn)[0]![0]!.value, value, dn);
      assert.equal(formatDn(parseDn(dn)), dn);
    }
  });

  test('escaping takes its shortcut only where walking every character changes nothing', () => {
    const alphabet = ['a', 'Z', '.', ' ', '#', '"', '+', ',', ';', '<', '>', '\\', '=', '\u0000', '\u001f', '\u007f', 'é', '日', '\u{1F600}'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i += 1) {
      const value = Array.from({ length: next() % 8 }, () => alphabet[next() % alphabet.length]).join('');
      assert.equal(escapeValue(value), escapeEachCharacter(value), JSON.stringify(value));
    }
    for (const plain of ['user.1', 'a b', 'é 日本', '']) assert.equal(escapeValue(plain), plain);
  });

  test('case, spacing, aliases and OIDs normalize away', () => {
    const expected = 'uid=user.1,ou=people,dc=example,dc=com';
    for (const variant of [
      'uid=User.1, ou=People,DC=example,dc=com', 'UID=USER.1,OU=PEOPLE,DC=EXAMPLE,DC=COM',
      'userid=user.1,ou=people,domainComponent=example,dc=com', '0.9.2342.19200300.100.1.1=user.1,ou=people,dc=example,dc=com',
      'uid=user.1 , ou=people , dc=example , dc=com', 'uid=user\\2e1,ou=people,dc=example,dc=com',
    ]) {
      assert.equal(normalizeDn(variant), expected, variant);
    }
  });

  test('multi-valued RDNs normalize regardless of order; insignificant inner spaces collapse', () => {
    assert.equal(normalizeDn('OU=Sales+CN=J.  Smith,DC=example'), normalizeDn('cn=j. smith+ou=sales,dc=EXAMPLE'));
  });

  test('case-exact attributes keep their case', () => {
    assert.notEqual(normalizeDn('homeDirectory=/Home/A,o=x'), normalizeDn('homeDirectory=/home/a,o=x'));
  });
});

describe('DN size limits (checked before parsing)', () => {
  const limits = { maxBytes: 40, maxRdns: 3 };

  test('RDNs are counted by their separators outside escapes and quotes', () => {
    assert.equal(dnSizeProblem('cn=a\\,b,o=x,c=y', limits), undefined);
    assert.equal(dnSizeProblem('cn="a,b;c",o=x,c=y', limits), undefined);
    assert.match(dnSizeProblem('cn=a,ou=b;o=x,c=y', limits) ?? '', /too many RDNs: 4, at most 3/);
  });

  test('length is counted in UTF-8 bytes', () => {
    assert.equal(dnSizeProblem(`cn=${'é'.repeat(18)}`, limits), undefined);
    assert.match(dnSizeProblem(`cn=${'é'.repeat(19)}`, limits) ?? '', /too long: 41 bytes, at most 40/);
  });

  test('parseDn refuses a DN beyond DN_CEILING as invalidDnSyntax, whatever the caller', () => {
    const deep = Array.from({ length: DN_CEILING.maxRdns + 1 }, (_, i) => `ou=${i}`).join(',');
    assert.throws(() => parseDn(deep), (error: unknown) => error instanceof DirectoryError && error.code === 34);
    assert.equal(parseDn(deep.slice(deep.indexOf(',') + 1)).length, DN_CEILING.maxRdns);
    assert.throws(() => parseDn(`cn=${'x'.repeat(DN_CEILING.maxBytes)}`), DirectoryError);
  });

  test('the defaults: 8,192 bytes (OpenLDAP\'s SLAP_LDAPDN_MAXLEN) and 64 RDNs', () => {
    assert.deepEqual(DEFAULT_DN_LIMITS, { maxBytes: 8192, maxRdns: 64 });
  });
});
