import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { build, filterToString, indexHint, matches, type Filter } from '../../../../src/server/filter/index.js';
import { DEFAULT_INDEXES, DirectoryStore, type Entry, type IndexHint, type Scope } from '../../../../src/store/index.js';
import { BASE, PEOPLE, entry, person, tempDir } from '../../../helpers/store.js';

const { and, or, not, equality, approx, greaterOrEqual, lessOrEqual, present, substrings, extensible } = build;

const INDEXED: ReadonlySet<string> = new Set(['objectclass', 'uid', 'cn', 'sn', 'mail', 'member', 'uniquemember', 'createtimestamp', 'hassubordinates']);

const hintOf = (filter: Filter): IndexHint | undefined => indexHint(filter, INDEXED);
const equalityHint = (attribute: string, value: string): IndexHint => ({ equality: { attribute, value: Buffer.from(value) } });

describe('indexHint', () => {
  test('a top-level equality on an indexed attribute, as written (the store normalizes)', () => {
    assert.deepEqual(hintOf(equality('UID', 'User.1')), equalityHint('UID', 'User.1'));
    assert.deepEqual(hintOf(equality('commonName', 'x')), equalityHint('commonName', 'x'));
  });

  test('an equality inside a top-level AND (nested ANDs too), preferring one that is not objectClass', () => {
    assert.deepEqual(hintOf(and(equality('objectClass', 'person'), equality('uid', 'user.1'))), equalityHint('uid', 'user.1'));
    assert.deepEqual(hintOf(and(equality('objectClass', 'person'), and(present('cn'), equality('mail', 'a@b')))), equalityHint('mail', 'a@b'));
    assert.deepEqual(hintOf(and(equality('objectClass', 'person'), substrings('cn', { initial: 'a' }))), equalityHint('objectClass', 'person'));
  });

  test('never inside OR or NOT', () => {
    assert.equal(hintOf(or(equality('uid', 'a'), equality('uid', 'b'))), undefined);
    assert.equal(hintOf(not(equality('uid', 'a'))), undefined);
    assert.equal(hintOf(and(not(equality('uid', 'a')), or(equality('cn', 'b'), present('mail')))), undefined);
    assert.deepEqual(hintOf(and(not(equality('uid', 'a')), equality('sn', 'b'))), equalityHint('sn', 'b'));
  });

  test('a presence term when there is no usable equality, never objectClass presence', () => {
    assert.deepEqual(hintOf(present('mail')), { present: 'mail' });
    assert.deepEqual(hintOf(and(present('objectClass'), equality('description', 'x'), present('member'))), { present: 'member' });
    assert.deepEqual(hintOf(and(present('mail'), equality('uid', 'a'))), equalityHint('uid', 'a'));
    assert.equal(hintOf(present('objectClass')), undefined);
  });

  test('unindexed attributes, other item types, computed and time attributes give no hint', () => {
    assert.equal(hintOf(equality('description', 'x')), undefined);
    assert.equal(hintOf(present('telephoneNumber')), undefined);
    for (const filter of [
      approx('uid', 'a'), greaterOrEqual('cn', 'a'), lessOrEqual('cn', 'a'), substrings('uid', { initial: 'a' }),
      extensible('a', { attribute: 'uid' }), equality('hasSubordinates', 'TRUE'), equality('createTimestamp', '20240101120000Z'),
    ]) assert.equal(hintOf(filter), undefined, filterToString(filter));
    assert.equal(indexHint(equality('uid', 'a'), new Set()), undefined);
  });
});

describe('indexHint over a real DirectoryStore: hinted searches find what a full scan finds', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  const GROUPS = entry('ou=Groups,dc=example,dc=com', { objectClass: ['top', 'organizationalUnit'], ou: 'Groups' });
  const group = (n: number, members: number[]): Entry => entry(`cn=Group ${n},ou=Groups,dc=example,dc=com`, {
    objectClass: ['top', 'groupOfNames'], cn: `Group ${n}`,
    member: members.map((m) => (m % 2 ? `UID=User.${m}, OU=People,DC=Example,DC=Com` : `uid=user.${m},ou=people,dc=example,dc=com`)),
  });

  before(async () => {
    dir = await tempDir();
    store = await DirectoryStore.open(dir.path, { indexes: [...DEFAULT_INDEXES, 'createTimestamp', 'hasSubordinates'] });
    await store.add(BASE, { allowNewSuffix: true });
    await store.add(PEOPLE);
    await store.add(GROUPS);
    for (let n = 0; n < 40; n += 1) {
      const extra: Record<string, string | string[]> = { uidNumber: String(1000 + n * 7), createTimestamp: `2024010${1 + (n % 9)}120000Z` };
      if (n % 3 === 0) extra['mail'] = [`user.${n}@example.com`, `u${n}@EXAMPLE.org`];
      if (n % 5 === 0) extra['cn;lang-en'] = `Person ${n}`;
      const added = person(n, extra);
      await store.add(n % 3 === 0 ? added : { ...added, attributes: added.attributes.filter((attribute) => attribute.name !== 'mail') });
    }
    for (let n = 0; n < 6; n += 1) await store.add(group(n, [n, n + 1, n + 10, 2 * n + 1]));
  });
  after(async () => { await store.close(); await dir.remove(); });

  async function found(scopeBase: string, scope: Scope, filter: Filter, hint: IndexHint | undefined): Promise<string[]> {
    const dns: string[] = [];
    for await (const candidate of store.search(scopeBase, scope, hint)) {
      const hasSubordinates = await store.hasChildren(candidate.dn);
      if (matches(filter, candidate, { hasSubordinates }) === true) dns.push(candidate.dn.toLowerCase());
    }
    return dns.sort();
  }

  const FILTERS: readonly Filter[] = [
    equality('uid', 'USER.7'),
    equality('userid', 'user.7'),
    and(equality('objectClass', 'inetOrgPerson'), equality('sn', 'number  3')),
    and(equality('objectClass', 'groupOfNames'), equality('member', 'uid=USER.1,ou=People,dc=example,dc=com')),
    equality('member', 'UID=User.11, OU=People,dc=example,dc=com'),
    equality('uniqueMember', 'uid=user.1,ou=people,dc=example,dc=com'),
    equality('mail', 'U6@example.ORG'),
    and(present('mail'), greaterOrEqual('uidNumber', '1100')),
    present('member'),
    present('cn;lang-en'),
    equality('cn;lang-en', 'person 10'),
    and(equality('cn', 'user 5'), not(equality('cn;lang-en', 'person 5'))),
    and(equality('objectClass', 'person'), or(equality('uid', 'user.1'), equality('uid', 'user.2'))),
    and(equality('objectClass', 'person'), not(present('mail'))),
    and(equality('objectClass', 'organizationalUnit'), equality('hasSubordinates', 'TRUE')),
    equality('createTimestamp', '20240103130000+0100'),
    and(equality('objectClass', 'person'), substrings('cn', { initial: 'user 1' })),
    and(equality('uid', 'user.3'), extensible('x', { attribute: 'cn', rule: 'noSuchMatch' })),
    and(equality('uidNumber', 'nine'), present('uid')),
    extensible('people', { attribute: 'ou', dnAttributes: true }),
  ];

  test('the same entries, for every filter and scope', async () => {
    let nonEmpty = 0;
    for (const filter of FILTERS) {
      for (const [scopeBase, scope] of [['dc=example,dc=com', 'sub'], ['ou=People,dc=example,dc=com', 'one'], ['ou=groups,dc=example,dc=com', 'sub']] as const) {
        const hint = indexHint(filter, store.indexed);
        const full = await found(scopeBase, scope, filter, undefined);
        const hinted = await found(scopeBase, scope, filter, hint);
        assert.deepEqual(hinted, full, `${filterToString(filter)} ${scope} ${scopeBase}`);
        if (full.length > 0) nonEmpty += 1;
      }
    }
    assert.ok(nonEmpty >= 20, `${nonEmpty} searches found something`);
  });

  test('the hint is used: an indexed equality reads only its candidates', async () => {
    const filter = and(equality('objectClass', 'person'), equality('member', 'uid=user.1,ou=people,dc=example,dc=com'));
    const before = store.stats.entriesRead;
    assert.equal((await found('dc=example,dc=com', 'sub', filter, indexHint(filter, store.indexed))).length, 0);
    assert.equal(store.stats.entriesRead - before, 2, 'the two groups with user.1 as a member');
    const people = await found('dc=example,dc=com', 'sub', equality('uid', 'user.7'), indexHint(equality('uid', 'user.7'), store.indexed));
    assert.deepEqual(people, ['uid=user.7,ou=people,dc=example,dc=com']);
  });
});
