/**
 * The shared tables (src/store/shared-table.ts): values in shared memory, used only while no
 * write to their key has finished since they were read; through the store, the password table
 * (a bind's read answered from it, filled at start, every write seen by the next read) and the
 * equality table (an equality lookup's dnKeys, every write of an index key seen by the next lookup)
 * and the record table (a search's records, every write to an entry seen by the next read).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { totalmem } from 'node:os';
import { hashKey, machineMemoryBytes, MAX_RECORD_BYTES, recordTableMbFor, SharedTable } from '../../../src/store/shared-table.js';
import { DirectoryStore, deleteEntry, dnKey, modifyEntry, parseDn, renameEntry, type Modification } from '../../../src/store/index.js';
import { BASE, PEOPLE, person, tempDir } from '../../helpers/store.js';
import { walkPasswords } from '../../../src/store/password-walk.js';
import { Level } from 'level';

const values = (...texts: string[]) => texts.map((text) => Buffer.from(text));
const texts = (found: Buffer[] | undefined) => found?.map(String);

/** Keeps `held` for `key` as a reader would: the mark read first. */
function keep(table: SharedTable, key: string, ...held: string[]): boolean {
  const hash = hashKey(key);
  return table.keep(key, hash, values(...held), table.markOf(hash));
}

const lookup = (table: SharedTable, key: string) => texts(table.lookup(key, hashKey(key)));

describe('SharedTable', () => {
  test('values kept are found by their key, by any holder of the memory; other keys are not', () => {
    const buffer = SharedTable.allocate(4);
    const table = new SharedTable(buffer);
    assert.equal(keep(table, 'dc=com\x01uid=a', '{SSHA}one', '{SSHA}two'), true);
    assert.equal(keep(table, 'dc=com\x01uid=none'), true);
    assert.deepEqual(lookup(table, 'dc=com\x01uid=a'), ['{SSHA}one', '{SSHA}two']);
    assert.deepEqual(lookup(new SharedTable(buffer), 'dc=com\x01uid=a'), ['{SSHA}one', '{SSHA}two'], 'another thread\'s view');
    assert.deepEqual(lookup(table, 'dc=com\x01uid=none'), [], 'an entry without a password');
    assert.equal(lookup(table, 'dc=com\x01uid=b'), undefined);
    assert.equal(lookup(table, 'dc=com\x01uid=A'), undefined);
    assert.deepEqual(table.stats, { hits: 2, misses: 2 }, 'this holder\'s lookups');
  });

  test('a write to the entry makes its values stale; values read before the write landed are never used', () => {
    const table = new SharedTable(SharedTable.allocate(4));
    const key = 'dc=com\x01uid=a';
    keep(table, key, 'old');
    table.touched(key);
    assert.equal(lookup(table, key), undefined, 'written since they were read');
    const hash = hashKey(key);
    const mark = table.markOf(hash); // a reader's mark, then its read of the old record...
    table.touched(key); // ...a write lands and finishes...
    assert.equal(table.keep(key, hash, values('old'), mark), true);
    assert.equal(lookup(table, key), undefined, '...so what it read is not used');
    keep(table, key, 'new');
    assert.deepEqual(lookup(table, key), ['new']);
    table.touchedAll();
    assert.equal(lookup(table, key), undefined, 'every record stale');
  });

  test('marks copied before a walk: a record kept with them is stale if its entry was written meanwhile', () => {
    const table = new SharedTable(SharedTable.allocate(4));
    const marks = table.copyMarks();
    table.touched('k2');
    for (const key of ['k1', 'k2']) table.keep(key, hashKey(key), values(`${key}-value`), SharedTable.markIn(marks, hashKey(key)));
    assert.deepEqual(lookup(table, 'k1'), ['k1-value']);
    assert.equal(lookup(table, 'k2'), undefined);
  });

  test('keys beyond the first index size are all kept (the index is rebuilt larger)', () => {
    const table = new SharedTable(SharedTable.allocate(64));
    const count = 150_000;
    for (let n = 0; n < count; n += 1) assert.equal(keep(table, `uid=user.${n}`, `{SSHA512}hash-of-${n}`), true);
    assert.equal(table.size, count);
    for (let n = 0; n < count; n += 7) assert.deepEqual(lookup(table, `uid=user.${n}`), [`{SSHA512}hash-of-${n}`]);
  });

  test('a full table keeps no more and says so; what it holds stays exact', () => {
    const table = new SharedTable(SharedTable.allocate(4));
    let kept = 0;
    while (!table.full) {
      assert.equal(keep(table, `uid=user.${kept}`, 'x'.repeat(200)), true);
      kept += 1;
    }
    assert.ok(kept > 5_000, `${kept} records of ~230 bytes in about 3 MiB`);
    for (let n = 0; n < kept; n += 13) assert.deepEqual(lookup(table, `uid=user.${n}`), ['x'.repeat(200)]);
  });

  test('what it cannot hold: keys with chars above 255, records over the limit', () => {
    const table = new SharedTable(SharedTable.allocate(4));
    assert.equal(hashKey('uid=\u0416'), 0);
    assert.equal(keep(table, 'uid=\u0416', 'secret'), false);
    assert.equal(lookup(table, 'uid=\u0416'), undefined);
    assert.equal(keep(table, 'uid=big', 'x'.repeat(MAX_RECORD_BYTES)), false);
    assert.deepEqual(keep(table, 'uid=caf\u00e9', 'latin-1 key'), true);
    assert.deepEqual(lookup(table, 'uid=caf\u00e9'), ['latin-1 key']);
  });
});

describe('the record table\'s size by default', () => {
  const GIB = 2 ** 30;
  test('a sixteenth of the memory, at least 256 MiB, at most what a table can address', () => {
    assert.equal(recordTableMbFor(2 * GIB), 256, 'a small machine keeps the floor');
    assert.equal(recordTableMbFor(4 * GIB), 256);
    assert.equal(recordTableMbFor(8 * GIB), 512);
    assert.equal(recordTableMbFor(24 * GIB), 1536, 'a million make-ldif users (about 1.1 GB) fit');
    assert.equal(recordTableMbFor(64 * GIB), 2047, 'offsets are Int32 cells');
  });

  test('the memory is the machine\'s, or less under a cgroup limit', () => {
    const bytes = machineMemoryBytes();
    assert.ok(bytes > 0 && bytes <= totalmem(), `${bytes} of ${totalmem()}`);
  });
});

describe('the store with a password table', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  const USERS = 40;
  const dnOf = (n: number) => parseDn(`uid=user.${n},ou=People,dc=example,dc=com`);
  const passwords = (n: number) => texts(store.passwordsByKeySync(dnKey(dnOf(n))));
  const change = (op: Modification['op'], attribute: string, ...vals: string[]): Modification => ({ op, attribute, values: values(...vals) });
  const ADMIN = { actor: 'cn=admin' };

  before(async () => {
    dir = await tempDir();
    const seed = await DirectoryStore.open(dir.path, { entryCacheMb: 0 });
    await seed.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await seed.add(PEOPLE);
    for (let n = 0; n < USERS; n += 1) await seed.add(person(n, { userPassword: `{CLEARTEXT}secret-${n}` }));
    await seed.close();
    store = await DirectoryStore.open(dir.path, { entryCacheMb: 0, tables: { passwords: SharedTable.allocate(4) } });
  });
  after(async () => { await store.close(); await dir.remove(); });

  test('filled at start with every entry; a bind\'s read then reads no record', async () => {
    assert.equal(await store.fillPasswordTable(), USERS + 2);
    const read = store.stats.entriesRead;
    for (let n = 0; n < USERS; n += 1) assert.deepEqual(passwords(n), [`{CLEARTEXT}secret-${n}`]);
    assert.equal(store.stats.entriesRead, read);
    assert.equal(store.passwordsByKeySync(dnKey(dnOf(USERS))), undefined, 'no such entry');
  });

  test('a modify, a rename and a delete are seen by the next read', async () => {
    await modifyEntry(store, dnOf(1), [change('replace', 'userPassword', '{CLEARTEXT}changed')], ADMIN);
    assert.deepEqual(passwords(1), ['{CLEARTEXT}changed']);
    await modifyEntry(store, dnOf(1), [change('add', 'userPassword', '{CLEARTEXT}second')], ADMIN);
    assert.deepEqual(passwords(1), ['{CLEARTEXT}changed', '{CLEARTEXT}second']);
    await modifyEntry(store, dnOf(2), [change('delete', 'userPassword')], ADMIN);
    assert.deepEqual(passwords(2), []);
    await renameEntry(store, dnOf(3), { newRdn: parseDn('uid=renamed')[0]!, deleteOldRdn: true }, ADMIN);
    assert.equal(passwords(3), undefined, 'the old name');
    assert.deepEqual(texts(store.passwordsByKeySync(dnKey(parseDn('uid=renamed,ou=People,dc=example,dc=com')))), ['{CLEARTEXT}secret-3']);
    await deleteEntry(store, dnOf(4));
    assert.equal(passwords(4), undefined);
    await store.add(person(4, { userPassword: '{CLEARTEXT}again' }));
    assert.deepEqual(passwords(4), ['{CLEARTEXT}again'], 'added again under the same name');
  });
});

describe('the store with an equality table', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  let table: SharedTable;
  const people = dnKey(parseDn('ou=People,dc=example,dc=com'));
  const dnOf = (n: number) => parseDn(`uid=user.${n},ou=People,dc=example,dc=com`);
  const mailOf = (n: number) => `user.${n}@example.com`;
  const ADMIN = { actor: 'cn=admin' };
  /** The dnKeys the store hands a search for `attribute=value` (its candidates: the index's answer, in scope). */
  const holders = async (attribute: string, value: string): Promise<string[]> => {
    const keys: string[] = [];
    for await (const found of store.searchRecords(people, 'sub', { equality: { attribute, value: Buffer.from(value) } })) keys.push(found.key!);
    return keys.sort();
  };
  const userKeys = (...numbers: number[]) => numbers.map((n) => dnKey(dnOf(n))).sort();
  /** A write elsewhere: this thread's own cache of equality answers is emptied by any write, so the next lookup asks the table. */
  const unrelatedWrite = () => modifyEntry(store, dnOf(9), [{ op: 'replace', attribute: 'description', values: values(`${Math.random()}`) }], ADMIN);

  before(async () => {
    dir = await tempDir();
    const seed = await DirectoryStore.open(dir.path, { entryCacheMb: 0 });
    await seed.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await seed.add(PEOPLE);
    for (let n = 0; n < 10; n += 1) await seed.add(person(n));
    await seed.close();
    table = new SharedTable(SharedTable.allocate(4));
    store = await DirectoryStore.open(dir.path, { entryCacheMb: 0, tables: { equalities: table.buffer } });
  });
  after(async () => { await store.close(); await dir.remove(); });

  test('an answer read once is given by the table after a write elsewhere, with no index key read', async () => {
    assert.deepEqual(await holders('mail', mailOf(1)), userKeys(1));
    await unrelatedWrite();
    const { hits } = store.equalities!.stats;
    const read = store.stats.indexKeysRead;
    assert.deepEqual(await holders('mail', mailOf(1)), userKeys(1));
    assert.equal(store.equalities!.stats.hits, hits + 1);
    assert.equal(store.stats.indexKeysRead, read, 'no index key read');
  });

  test('every write of a value is seen by the next lookup of it: added, replaced, removed, a new holder, a holder deleted', async () => {
    const shared = 'shared@example.com';
    const { hits } = store.equalities!.stats;
    assert.deepEqual(await holders('mail', shared), [], 'nobody holds it: the empty answer is kept');
    await unrelatedWrite();
    assert.deepEqual(await holders('mail', shared), []);
    await modifyEntry(store, dnOf(2), [{ op: 'add', attribute: 'mail', values: values(shared) }], ADMIN);
    assert.deepEqual(await holders('mail', shared), userKeys(2), 'a value added');
    await modifyEntry(store, dnOf(3), [{ op: 'replace', attribute: 'mail', values: values(shared) }], ADMIN);
    assert.deepEqual(await holders('mail', shared), userKeys(2, 3), 'a value replaced');
    assert.deepEqual(await holders('mail', mailOf(3)), [], 'the value it replaced');
    await store.add(person(20, { mail: shared }));
    assert.deepEqual(await holders('mail', shared), userKeys(2, 3, 20), 'a new entry holding it');
    await modifyEntry(store, dnOf(2), [{ op: 'delete', attribute: 'mail', values: values(shared) }], ADMIN);
    assert.deepEqual(await holders('mail', shared), userKeys(3, 20), 'a value removed');
    await deleteEntry(store, dnOf(20));
    assert.deepEqual(await holders('mail', shared), userKeys(3), 'a holder deleted');
    await renameEntry(store, dnOf(3), { newRdn: parseDn('uid=moved')[0]!, deleteOldRdn: true }, ADMIN);
    assert.deepEqual(await holders('mail', shared), [dnKey(parseDn('uid=moved,ou=People,dc=example,dc=com'))], 'its holder renamed');
    assert.ok(store.equalities!.stats.hits > hits, 'the table answered some of them');
  });
});

describe('the store with a record table', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  const dnOf = (n: number) => parseDn(`uid=user.${n},ou=People,dc=example,dc=com`);
  const ADMIN = { actor: 'cn=admin' };
  /** The entry's descriptions as a search reads it (its record through the table). */
  const descriptionsOf = (dn: ReturnType<typeof parseDn>) => store.getByKeySync(dnKey(dn))?.attributes.find((a) => a.name === 'description')?.values.map(String);
  const setDescription = (n: number, text: string) => modifyEntry(store, dnOf(n), [{ op: 'replace', attribute: 'description', values: values(text) }], ADMIN);

  before(async () => {
    dir = await tempDir();
    const seed = await DirectoryStore.open(dir.path, { entryCacheMb: 0 });
    await seed.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await seed.add(PEOPLE);
    for (let n = 0; n < 10; n += 1) await seed.add(person(n, { description: `first ${n}` }));
    await seed.close();
    store = await DirectoryStore.open(dir.path, { entryCacheMb: 0, tables: { records: SharedTable.allocate(4) } });
  });
  after(async () => { await store.close(); await dir.remove(); });

  test('a record read once is read from the table after, by a search as by a read of the entry', async () => {
    const table = store.recordTable!;
    assert.deepEqual(descriptionsOf(dnOf(1)), ['first 1']);
    const { hits } = table.stats;
    assert.deepEqual(descriptionsOf(dnOf(1)), ['first 1']);
    const found: string[] = [];
    for await (const record of store.searchRecords(dnKey(parseDn('ou=People,dc=example,dc=com')), 'sub', { equality: { attribute: 'uid', value: Buffer.from('user.1') } })) found.push(record.key!);
    assert.deepEqual(found, [dnKey(dnOf(1))]);
    assert.equal(table.stats.hits, hits + 2);
  });

  test('every write to an entry is seen by the next read of it: modified, renamed, deleted, added again', async () => {
    for (let n = 2; n < 6; n += 1) assert.deepEqual(descriptionsOf(dnOf(n)), [`first ${n}`], 'read, so held');
    await setDescription(2, 'second');
    assert.deepEqual(descriptionsOf(dnOf(2)), ['second'], 'modified');
    await setDescription(2, 'third');
    assert.deepEqual(descriptionsOf(dnOf(2)), ['third'], 'modified again');
    await renameEntry(store, dnOf(3), { newRdn: parseDn('uid=moved')[0]!, deleteOldRdn: true }, ADMIN);
    assert.equal(descriptionsOf(dnOf(3)), undefined, 'the old name');
    assert.deepEqual(descriptionsOf(parseDn('uid=moved,ou=People,dc=example,dc=com')), ['first 3']);
    await deleteEntry(store, dnOf(4));
    assert.equal(descriptionsOf(dnOf(4)), undefined, 'deleted');
    await store.add(person(4, { description: 'again' }));
    assert.deepEqual(descriptionsOf(dnOf(4)), ['again'], 'added again under the same name');
    assert.ok(store.recordTable!.stats.hits > 0);
  });
});

describe('the walk that fills the password table', () => {
  test('between slices it stops when its turn is over, with no iterator open while it waits, and goes on from a new snapshot', async () => {
    const dir = await tempDir();
    try {
      const seed = await DirectoryStore.open(dir.path);
      await seed.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
      await seed.add(PEOPLE);
      for (let n = 0; n < 2500; n += 1) await seed.add(person(n, { userPassword: `{CLEARTEXT}secret-${n}` }), { sync: false });
      await seed.close();
      const db = new Level<string, Buffer>(dir.path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
      await db.open();
      let open = 0;
      let made = 0;
      const counted = new Proxy(db, {
        get(target, name) {
          if (name !== 'iterator') return Reflect.get(target, name);
          return (options: object) => {
            const iterator = target.iterator(options);
            open += 1;
            made += 1;
            const close = iterator.close.bind(iterator);
            return Object.assign(iterator, { close: async () => { open -= 1; await close(); } });
          };
        },
      });
      const openWhileWaiting: number[] = [];
      const turns = { now: () => false, wait: async () => { openWhileWaiting.push(open); } };
      const table = new SharedTable(SharedTable.allocate(4));
      assert.equal(await walkPasswords(counted, table, () => true, turns), 2502);
      assert.ok(made > 2, `${made} snapshots: one slice each, as the turn was over after every slice`);
      assert.equal(openWhileWaiting.length, made, 'a wait before each snapshot');
      assert.ok(openWhileWaiting.every((count) => count === 0), 'no iterator open while it waits');
      assert.equal(open, 0);
      assert.deepEqual(lookup(table, dnKey(parseDn('uid=user.2499,ou=People,dc=example,dc=com'))), ['{CLEARTEXT}secret-2499']);
      await db.close();
    } finally {
      await dir.remove();
    }
  });
});
