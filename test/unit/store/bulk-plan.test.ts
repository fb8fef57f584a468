/**
 * planBulkEntry (src/store/bulk-plan.ts) parses only the first RDN of a DN whose parent it has
 * seen, and keeps the parent's keys: its DN, keys and operations must be what parsing the whole
 * DN gives, for every shape of DN, and a DN it cannot take must fail with parseDn's own words.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeRdn, parseDn, planBulkEntry, type Entry } from '../../../src/store/index.js';
import { ancestorKeys, childKey } from '../../../src/store/keys.js';

const context = { actor: 'cn=admin', indexed: new Set<string>(), schemaCheck: false };

/** An entry that names DN `dn` and holds its first RDN's values. */
function entryNamed(dn: string): Entry {
  const first = parseDn(dn)[0]!;
  return {
    dn,
    attributes: [
      { name: 'objectClass', values: [Buffer.from('extensibleObject')] },
      ...first.filter((ava) => !ava.hex).map((ava) => ({ name: ava.type, values: [Buffer.from(ava.value)] })),
    ],
  };
}

const DNS = [
  'uid=user.1,ou=People,dc=example,dc=com',
  'uid=user.2,ou=People,dc=example,dc=com',
  'UID=User.3 , OU=People,DC=Example,DC=com',
  'uid = user.4,ou=People,dc=example,dc=com',
  'uid=user.5, ou=People, dc=example, dc=com',
  'cn=Sales\\, East,ou=Groups,dc=example,dc=com',
  'cn=a+sn=b,ou=People,dc=example,dc=com',
  'cn=x,ou=Sales\\, East,dc=example,dc=com',
  'cn=y,ou="Quoted, Unit",dc=example,dc=com',
  'cn=z,ou=Sales+l=East,dc=example,dc=com',
  'cn=Ｆｕｌｌ　Ｗｉｄｔｈ,ou=People,dc=example,dc=com',
  'cn=Élodie  Çà,ou=People,dc=example,dc=com',
  'cn=#04024869,ou=People,dc=example,dc=com',
  'cn=\\#hash,ou=People,dc=example,dc=com',
  '2.5.4.3=by oid,ou=People,dc=example,dc=com',
  'cn=semi;ou=People;dc=example,dc=com',
  'dc=com',
  'dc=example,dc=com',
  'uid=user.1,ou=People,dc=example,dc=com',
];

describe('planBulkEntry: DNs', () => {
  for (const dn of DNS) {
    test(`keys and operations as the whole parse gives: ${dn}`, () => {
      const parsed = parseDn(dn);
      const keys = ancestorKeys(parsed);
      const plan = planBulkEntry(entryNamed(dn), context);
      assert.deepEqual(plan.keys, keys);
      assert.equal(plan.ops[1]!.key, childKey(keys[1] ?? '', normalizeRdn(parsed[0]!)));
      const again = planBulkEntry(entryNamed(dn), context);
      assert.deepEqual(again.keys, plan.keys);
      assert.deepEqual(again.ops.map((op) => op.key), plan.ops.map((op) => op.key));
    });
  }

  const BAD = [
    'uid=user.1,ou=People,,dc=com',
    'uid=user.1,ou=People,dc',
    'uid=user.1,=People,dc=com',
    'uid=user.1,ou=People,dc=com,',
    `uid=user.1,${Array.from({ length: 600 }, (_, n) => `ou=u${n}`).join(',')}`,
    `uid=user.1,ou=${'x'.repeat(70_000)}`,
    'uid,ou=People,dc=example,dc=com',
    'cn=#hash,ou=People,dc=example,dc=com',
  ];
  for (const dn of BAD) {
    test(`refused with parseDn's words: ${dn.slice(0, 40)}`, () => {
      let expected: unknown;
      try {
        parseDn(dn);
      } catch (error) {
        expected = error;
      }
      assert.ok(expected instanceof Error, 'parseDn refuses it');
      const entry = { dn, attributes: [{ name: 'objectClass', values: [Buffer.from('extensibleObject')] }] };
      assert.throws(() => planBulkEntry(entry, context), (error: Error) => error.message === expected.message && error.name === expected.name);
    });
  }
});
