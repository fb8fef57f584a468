/**
 * The `check` of every online write (src/store/writes.ts): it sees the entry under the entry's
 * lock, as the write finds it (on add: as it will be stored, operational attributes included),
 * after the write's own existence checks; a throw leaves the entry as it was; add, modify and
 * rename return the entry exactly as stored.
 */
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  addEntry, deleteEntry, modifyEntry, parseDn, renameEntry, values, DirectoryError, DirectoryStore, type Entry,
} from '../../../src/store/index.js';
import { BASE, PEOPLE, person, tempDir } from '../../helpers/store.js';

const ADMIN = { actor: 'cn=admin' };
const userDn = (n: number) => `uid=user.${n},ou=People,dc=example,dc=com`;
const text = (found: Entry | undefined, name: string): string[] => (found ? values(found, name).map((v) => v.toString()) : []);
const refuse = () => {
  throw new DirectoryError('assertionFailed', '');
};
const isAssertionFailed = (error: unknown) => error instanceof DirectoryError && error.code === 122;

describe('write checks', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  beforeEach(async () => {
    dir = await tempDir('leveldap-write-checks-');
    store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await store.add(PEOPLE, ADMIN);
    for (let n = 0; n < 3; n += 1) await store.add(person(n), ADMIN);
  });

  afterEach(async () => {
    await store.close();
    await dir.remove();
  });

  test('add: the check sees the entry as it will be stored; a refusal stores nothing; the entry as stored is returned', async () => {
    let seen: Entry | undefined;
    const stored = await addEntry(store, person(10), { ...ADMIN, check: (found) => { seen = found; } });
    assert.deepEqual(seen, stored);
    assert.deepEqual(await store.get(parseDn(userDn(10))), stored);
    assert.equal(text(stored, 'creatorsName')[0], 'cn=admin');
    assert.equal(text(stored, 'entryUUID').length, 1);
    await assert.rejects(addEntry(store, person(11), { ...ADMIN, check: refuse }), isAssertionFailed);
    assert.equal(await store.get(parseDn(userDn(11))), undefined);
    // The write's own checks come first: an existing entry answers 68, not the check's refusal.
    await assert.rejects(addEntry(store, person(0), { ...ADMIN, check: refuse }), (error) => error instanceof DirectoryError && error.code === 68);
  });

  test('modify: the check sees the stored entry under the lock; a refusal changes nothing', async () => {
    const before = await store.get(parseDn(userDn(0)));
    let seen: Entry | undefined;
    const replace = [{ op: 'replace' as const, attribute: 'sn', values: [Buffer.from('Changed')] }];
    await assert.rejects(modifyEntry(store, parseDn(userDn(0)), replace, { ...ADMIN, check: refuse }), isAssertionFailed);
    assert.deepEqual(await store.get(parseDn(userDn(0))), before);
    const written = await modifyEntry(store, parseDn(userDn(0)), replace, { ...ADMIN, check: (found) => { seen = found; } });
    assert.deepEqual(seen, before);
    assert.deepEqual(await store.get(parseDn(userDn(0))), written);
    assert.deepEqual(text(written, 'sn'), ['Changed']);
  });

  test('modify: concurrent increments, each checking the value it increments, see every value once', async () => {
    const dn = parseDn(userDn(1));
    // uidNumber needs a class that allows it on an inetOrgPerson (writes are schema-checked)
    const extensible = { op: 'add' as const, attribute: 'objectClass', values: [Buffer.from('extensibleObject')] };
    await modifyEntry(store, dn, [extensible, { op: 'add', attribute: 'uidNumber', values: [Buffer.from('0')] }], ADMIN);
    const seen: string[] = [];
    const increment = [{ op: 'increment' as const, attribute: 'uidNumber', values: [Buffer.from('1')] }];
    await Promise.all(Array.from({ length: 20 }, () => modifyEntry(store, dn, increment, { ...ADMIN, check: (found) => { seen.push(text(found, 'uidNumber')[0]!); } })));
    assert.deepEqual(seen.map(Number).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
  });

  test('delete: the check sees the entry deleted; a refusal keeps it; a missing entry is 32 before any check', async () => {
    let seen: Entry | undefined;
    await assert.rejects(deleteEntry(store, parseDn(userDn(2)), { check: refuse }), isAssertionFailed);
    const kept = await store.get(parseDn(userDn(2)));
    assert.ok(kept);
    await deleteEntry(store, parseDn(userDn(2)), { check: (found) => { seen = found; } });
    assert.deepEqual(seen, kept);
    assert.equal(await store.get(parseDn(userDn(2))), undefined);
    await assert.rejects(deleteEntry(store, parseDn(userDn(2)), { check: refuse }), (error) => error instanceof DirectoryError && error.code === 32);
  });

  test('rename: the check sees the entry before the rename; a refusal keeps the old name; the renamed entry is returned', async () => {
    const dn = parseDn(userDn(1));
    const rename = { newRdn: parseDn('uid=renamed')[0]!, deleteOldRdn: true };
    await assert.rejects(renameEntry(store, dn, rename, { ...ADMIN, check: refuse }), isAssertionFailed);
    const before = await store.get(dn);
    assert.ok(before);
    let seen: Entry | undefined;
    const after = await renameEntry(store, dn, rename, { ...ADMIN, check: (found) => { seen = found; } });
    assert.deepEqual(seen, before);
    assert.equal(after.dn, 'uid=renamed,ou=People,dc=example,dc=com');
    assert.deepEqual(await store.get(parseDn(after.dn)), after);
    assert.equal(await store.get(dn), undefined);
  });
});
