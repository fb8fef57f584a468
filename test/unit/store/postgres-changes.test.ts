/**
 * A node of a PostgreSQL store derives its LevelDB keys from rows (src/store/postgres/changes.ts):
 * whatever the write path writes, the rows it changes must give the same database when applied
 * to a copy. One store writes as usual and mirrors each batch's rows into a second store through
 * rowChanges and localBatch, as the applier does; both databases must then hold the same keys
 * and values. Plus the log sequence numbers the applier compares.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Level } from 'level';
import {
  DirectoryStore, addEntry, deleteEntry, modifyEntry, parseDn, renameEntry, type BatchOp,
} from '../../../src/store/index.js';
import { localBatch, rowChanges, settingOps } from '../../../src/store/postgres/changes.js';
import { formatLsn, parseLsn } from '../../../src/store/postgres/lsn.js';
import { lockEqualStatement, lockStatement, rowStatements } from '../../../src/store/postgres/statements.js';
import type { SystemOfRecord } from '../../../src/store/system-of-record.js';
import { BASE, PEOPLE, entry, tempDir } from '../../helpers/store.js';

const ADMIN = { actor: 'cn=admin' };

/** Writes each batch to `store` as it is, and its rows to `copy` as the applier would. */
function mirror(store: DirectoryStore, copy: DirectoryStore): SystemOfRecord {
  return {
    clock: 0,
    staleReason: () => undefined,
    stats: () => ({ commits: 0, transactions: 0, lockedFirst: 0, applyWait: { buckets: [], sum: 0, count: 0 }, silentSeconds: 0 }),
    catchUp: async () => {},
    around: (_keys, critical) => critical(),
    commit: async (ops: readonly BatchOp[]) => {
      await store.writeLocal(ops, false);
      const changes = rowChanges(ops);
      const keys = [...changes.entries.keys()];
      const before = await copy.records(keys);
      const derived = localBatch(changes.entries, new Map(keys.map((key, i) => [key, before[i]])), copy.indexed);
      await copy.writeLocal([...derived, ...settingOps(changes.settings)], false);
    },
  };
}

async function dump(path: string): Promise<string[]> {
  const db = new Level<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  const pairs: string[] = [];
  for await (const [key, value] of db.iterator()) if (!key.startsWith('m\x00') || key.startsWith('m\x00setting:')) pairs.push(`${JSON.stringify(key)}=${value.toString('hex')}`);
  await db.close();
  return pairs;
}

const user = (uid: string, parent: string) => entry(`uid=${uid},${parent}`, { objectClass: 'inetOrgPerson', uid, cn: `User ${uid}`, sn: 'S', mail: `${uid}@example.com` });
const group = (cn: string, parent: string, members: string[]) => entry(`cn=${cn},${parent}`, { objectClass: 'groupOfNames', cn, member: members });

/** Adds, modifies (index and membership changes), renames a subtree with groups naming it, deletes with referential integrity, a setting. */
async function workload(store: DirectoryStore): Promise<void> {
  const people = 'ou=People,dc=example,dc=com';
  const sales = `ou=Sales,${people}`;
  await store.add(BASE, { allowNewSuffix: true, ...ADMIN });
  await store.add(PEOPLE, ADMIN);
  await store.add(entry('o=other', { objectClass: 'organization', o: 'other' }), { allowNewSuffix: true, ...ADMIN });
  await addEntry(store, entry(sales, { objectClass: 'organizationalUnit', ou: 'Sales' }), ADMIN);
  for (const uid of ['a', 'b', 'c']) await addEntry(store, user(uid, sales), ADMIN);
  await addEntry(store, user('d', people), ADMIN);
  await addEntry(store, group('staff', people, [`uid=a,${sales}`, `uid=d,${people}`]), ADMIN);
  await addEntry(store, group('all', 'dc=example,dc=com', [`cn=staff,${people}`, `uid=b,${sales}`]), ADMIN);
  await modifyEntry(store, parseDn(`uid=d,${people}`), [{ op: 'replace', attribute: 'mail', values: [Buffer.from('d2@example.com')] }], ADMIN);
  await modifyEntry(store, parseDn(`cn=staff,${people}`), [{ op: 'add', attribute: 'member', values: [Buffer.from(`uid=c,${sales}`)] }], ADMIN);
  await renameEntry(store, parseDn(sales), { newRdn: parseDn('ou=Revenue')[0]!, deleteOldRdn: true, newSuperior: parseDn('dc=example,dc=com') }, ADMIN);
  await deleteEntry(store, parseDn('uid=a,ou=Revenue,dc=example,dc=com'), ADMIN);
  await renameEntry(store, parseDn(`cn=staff,${people}`), { newRdn: parseDn('cn=crew')[0]!, deleteOldRdn: true }, ADMIN);
  await deleteEntry(store, parseDn('o=other'), ADMIN);
  await store.putSetting('admin-password', '{SSHA}x');
}

test('the rows a write changes, applied to a copy, give the database the write path gives', async () => {
  const [dirA, dirB] = [await tempDir(), await tempDir()];
  try {
    const [store, copy] = [await DirectoryStore.open(dirA.path), await DirectoryStore.open(dirB.path)];
    store.attach(mirror(store, copy));
    await workload(store);
    await store.close();
    await copy.close();
    const [written, copied] = [await dump(dirA.path), await dump(dirB.path)];
    assert.ok(written.length > 50, `a real workload (${written.length} keys)`);
    assert.deepEqual(copied, written);
  } finally {
    await dirA.remove();
    await dirB.remove();
  }
});

test('rowChanges keeps entry records and settings, marks naming contexts, and drops derived keys', () => {
  const ops: BatchOp[] = [
    { type: 'put', key: 'e\x00dc=com', value: Buffer.from('r1') }, { type: 'put', key: 's\x00dc=com', value: Buffer.alloc(0) },
    { type: 'put', key: 'e\x00dc=com\x01ou=x', value: Buffer.from('r2') }, { type: 'del', key: 'e\x00dc=com\x01ou=y' },
    { type: 'put', key: 'i\x00ou\x00x\x00dc=com\x01ou=x', value: Buffer.alloc(0) }, { type: 'put', key: 'm\x00setting:admin', value: Buffer.from('v') },
  ];
  const changes = rowChanges(ops);
  assert.deepEqual([...changes.entries.keys()], ['dc=com', 'dc=com\x01ou=x', 'dc=com\x01ou=y']);
  assert.equal(changes.entries.get('dc=com')?.suffix, true);
  assert.equal(changes.entries.get('dc=com\x01ou=x')?.suffix, false);
  assert.equal(changes.entries.get('dc=com\x01ou=y'), null);
  assert.deepEqual([...changes.settings], [['admin', 'v']]);
});

test('log sequence numbers compare as numbers and print as PostgreSQL does', () => {
  assert.ok(parseLsn('0/19265D0') < parseLsn('0/19266C8'));
  assert.ok(parseLsn('0/FFFFFFFF') < parseLsn('1/0'));
  assert.equal(parseLsn('00000000/019265D0'), parseLsn('0/19265D0'));
  assert.equal(formatLsn(parseLsn('16/B374D848')), '16/B374D848');
  assert.throws(() => parseLsn('nope'), /not a log sequence number/);
});

test('statements quote every value: a key or setting holding quotes and backslashes stays a literal', () => {
  const key = "dc=com\x01cn=o'brien\\; DROP TABLE x";
  const lock = lockStatement([key]);
  assert.ok(lock.includes(`E'dc=com\x01cn=o''brien\\\\; DROP TABLE x'`), lock);
  assert.ok(lock.endsWith('FOR UPDATE'));
  const check = lockEqualStatement([key, 'dc=com'], ["ab'", undefined], false);
  assert.equal(check, `SELECT leveldap_lock_equal(ARRAY[ E'dc=com\x01cn=o''brien\\\\; DROP TABLE x', 'dc=com']::text[], ARRAY['ab''', NULL]::text[], false)`);
  const rows = rowStatements(new Map([[key, Buffer.from('old')]]), {
    entries: new Map([[key, { record: Buffer.from([0, 1, 0x27]), suffix: false }]]), settings: new Map([["it's", null]]),
  });
  assert.equal(rows.length, 2);
  assert.match(rows[0]!, /^UPDATE leveldap_entries .*decode\('000127', 'hex'\)/);
  assert.equal(rows[1], "DELETE FROM leveldap_settings WHERE name = 'it''s'");
});
