/** entryKeyOf (src/server/handlers/entry-key.ts) gives dnKey(parseDn(dn)) for every form of DN, its parents' keys kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entryKeyOf } from '../../../../src/server/handlers/entry-key.js';
import { dnKey, parseDn } from '../../../../src/store/index.js';

const DNS = [
  'uid=user.1,ou=People,dc=example,dc=com',
  'UID=User.1,OU=people,DC=Example,DC=COM',
  'uid=user.2, ou=People, dc=example, dc=com',
  'uid = user.3 ,ou=People,dc=example,dc=com',
  'dc=com',
  'cn=a\\,b,ou=People,dc=example,dc=com',
  'cn="a,b",ou=People,dc=example,dc=com',
  'cn=#04024869,ou=People,dc=example,dc=com',
  'cn=a+sn=b,ou=People,dc=example,dc=com',
  'cn=x;ou=People;dc=example;dc=com',
  'cn=y,ou=Pe\\2Cople,dc=example,dc=com',
  'cn=z,ou="Pe,ople",dc=example,dc=com',
  'commonName=Zoë,ou=People,dc=example,dc=com',
  '2.5.4.3=w,ou=People,dc=example,dc=com',
  'uid=a,dc=x=',
];

test('entryKeyOf is dnKey(parseDn(dn)), the first time and when its parent is known', () => {
  for (let round = 0; round < 2; round += 1) {
    for (const dn of DNS) assert.equal(entryKeyOf(dn), dnKey(parseDn(dn)), dn);
  }
});

test('a malformed DN is refused as parseDn refuses it', () => {
  for (const dn of ['uid=a,', 'uid=a,=b', 'nonsense,ou=People,dc=example,dc=com', 'uid=a, ,dc=com']) {
    assert.throws(() => dnKey(parseDn(dn)), /invalid DN/, dn);
    assert.throws(() => entryKeyOf(dn), /invalid DN/, dn);
  }
});
