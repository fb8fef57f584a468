/**
 * The caches of what the database answered (src/store/stamped-cache.ts): equality lookups and
 * entry records, kept only while no write has finished, the oldest first out; and through the
 * store, a repeated lookup reads no index keys and a repeated read no record, while every write
 * (add, modify, delete) is seen by the next search and the next read at once.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EqualityCache, RecordCache, EQUALITY_CACHE_KEYS, RECORD_PAUSE_WINDOWS, RECORD_WINDOW } from '../../../src/store/stamped-cache.js';
import { DirectoryStore, deleteEntry, modifyEntry, parseDn, type Modification } from '../../../src/store/index.js';
import { equalDns, peopleStore, person, tempDir } from '../../helpers/store.js';
import { randomBytes } from 'node:crypto';
import { Level } from 'level';
import { entryCacheBytes } from '../../../src/store/level.js';
import { ENTRY_KEYS } from '../../../src/store/keys.js';

describe('EqualityCache', () => {
  test('an answer is kept until a write finishes, and one read while a write finished is not kept', () => {
    let settled = 0;
    const cache = new EqualityCache(() => settled);
    cache.keep('a', ['k1'], cache.begin());
    assert.deepEqual(cache.get('a'), ['k1']);
    settled += 1;
    assert.equal(cache.get('a'), undefined, 'a write finished: every answer goes');
    const stamp = cache.begin();
    settled += 1;
    cache.keep('b', ['k2'], stamp);
    assert.equal(cache.get('b'), undefined, 'a write finished while it was read');
  });

  test('the oldest answer goes first; large answers are not kept', () => {
    const cache = new EqualityCache(() => 0, 2);
    cache.keep('a', ['ka'], cache.begin());
    cache.keep('b', ['kb'], cache.begin());
    assert.deepEqual(cache.get('a'), ['ka']);
    cache.keep('c', ['kc'], cache.begin());
    assert.equal(cache.get('a'), undefined);
    assert.deepEqual(cache.get('b'), ['kb']);
    assert.deepEqual(cache.get('c'), ['kc']);
    cache.keep('many', Array.from({ length: EQUALITY_CACHE_KEYS + 1 }, (_, i) => `k${i}`), cache.begin());
    assert.equal(cache.get('many'), undefined);
  });
});

describe('RecordCache', () => {
  test('records are kept up to a number of bytes, the oldest first out, and none past a write', () => {
    let settled = 0;
    const record = (size: number, fill: number) => Buffer.alloc(size, fill);
    const cache = new RecordCache(() => settled, 1000);
    cache.keep('a', record(300, 1), cache.begin());
    cache.keep('b', record(300, 2), cache.begin());
    assert.equal(cache.get('a')?.[0], 1);
    cache.keep('c', record(300, 3), cache.begin());
    assert.equal(cache.get('a'), undefined, 'a, b and c with their overhead pass 1000 bytes: a goes');
    assert.equal(cache.get('b')?.[0], 2);
    assert.equal(cache.get('c')?.[0], 3);
    cache.keep('b', record(100, 4), cache.begin());
    assert.equal(cache.get('b')?.[0], 4, 'kept again: the new record replaces the old');
    cache.keep('huge', record(2000, 5), cache.begin());
    assert.equal(cache.get('huge'), undefined, 'larger than the whole cache: not kept');
    assert.equal(cache.get('c')?.[0], 3, 'and nothing pushed out for it');
    settled += 1;
    assert.equal(cache.get('c'), undefined, 'a write finished: every record goes');
  });

  test('a cache pushing out many records lets them go and keeps none for a while, then tries again; one whose records fit keeps on', () => {
    const cache = new RecordCache(() => 0, 10 * (100 + 160));
    const read = (key: string) => {
      if (cache.get(key) === undefined) cache.keep(key, Buffer.alloc(100), cache.begin());
    };
    for (let i = 0; i < RECORD_WINDOW; i += 1) read(`k${i % 1000}`); // 1,000 keys through room for 10
    assert.equal(cache.keeping, false, 'a window of evictions: paused');
    assert.equal(cache.get('k94'), undefined, 'and its records let go (k94 was among the last ten kept)');
    for (let i = 1; i < RECORD_WINDOW * RECORD_PAUSE_WINDOWS; i += 1) read(`new${i}`);
    assert.equal(cache.keeping, true, 'after the pause it keeps new records again');
    const busy = new RecordCache(() => 0, 10 * (100 + 160));
    for (let i = 0; i < 3 * RECORD_WINDOW; i += 1) {
      const key = `k${i % 8}`;
      if (busy.get(key) === undefined) busy.keep(key, Buffer.alloc(100), busy.begin());
    }
    assert.equal(busy.keeping, true, '8 keys in room for 10: nearly every lookup answered');
  });

  test('a capacity of 0 keeps nothing', () => {
    const cache = new RecordCache(() => 0, 0);
    cache.keep('a', Buffer.from('x'), cache.begin());
    assert.equal(cache.get('a'), undefined);
  });
});

describe('DirectoryStore: equality lookups through the cache', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  const ADMIN = { actor: 'cn=admin' };
  const change = (op: Modification['op'], attribute: string, value: string): Modification => ({ op, attribute, values: [Buffer.from(value)] });

  const find = (attribute: string, value: string) => equalDns(store, attribute, value);

  before(async () => {
    dir = await tempDir();
    store = await peopleStore(dir.path, 20);
  });
  after(async () => { await store.close(); await dir.remove(); });

  test('a repeated lookup reads no index keys, and reads its entries again', async () => {
    assert.deepEqual(await find('uid', 'user.3'), ['uid=user.3,ou=People,dc=example,dc=com']);
    const keys = store.stats.indexKeysRead;
    const entries = store.stats.entriesRead;
    assert.deepEqual(await find('UID', 'USER.3'), ['uid=user.3,ou=People,dc=example,dc=com']);
    assert.equal(store.stats.indexKeysRead, keys);
    assert.equal(store.stats.entriesRead, entries + 1);
  });

  test('a repeated read of an entry reads no record from LevelDB; a modify and a delete are seen by the next read', async () => {
    const dn = parseDn('uid=user.7,ou=People,dc=example,dc=com');
    const mail = () => store.getSync(dn)?.attributes.find((attribute) => attribute.name === 'mail')?.values.map(String);
    assert.deepEqual(mail(), ['user.7@example.com']);
    const hits = store.stats.recordCacheHits;
    assert.deepEqual(mail(), ['user.7@example.com']);
    assert.deepEqual(store.valuesSync(dn, 'mail')?.map(String), ['user.7@example.com']);
    assert.equal(store.stats.recordCacheHits, hits + 2, 'both answered from the cache');
    await modifyEntry(store, dn, [change('replace', 'mail', 'seven@example.com')], ADMIN);
    assert.deepEqual(mail(), ['seven@example.com'], 'the modified entry at once');
    assert.deepEqual(store.valuesSync(dn, 'mail')?.map(String), ['seven@example.com']);
    await deleteEntry(store, dn);
    assert.equal(store.getSync(dn), undefined, 'the deleted entry is gone at once');
    assert.equal(store.valuesSync(dn, 'mail'), undefined);
  });

  test('an add, a modify and a delete are seen by the next lookup', async () => {
    assert.equal((await find('sn', 'Number 4')).length, 2);
    await store.add(person(24));
    assert.equal((await find('sn', 'Number 4')).length, 3, 'the added entry');
    assert.deepEqual(await find('uid', 'user.5'), ['uid=user.5,ou=People,dc=example,dc=com']);
    assert.deepEqual(await find('mail', 'new@example.com'), []);
    await modifyEntry(store, parseDn('uid=user.5,ou=People,dc=example,dc=com'), [change('replace', 'mail', 'new@example.com')], ADMIN);
    assert.deepEqual(await find('mail', 'new@example.com'), ['uid=user.5,ou=People,dc=example,dc=com'], 'the new value');
    assert.deepEqual(await find('mail', 'user.5@example.com'), [], 'the old value');
    await deleteEntry(store, parseDn('uid=user.5,ou=People,dc=example,dc=com'));
    assert.deepEqual(await find('uid', 'user.5'), []);
  });
});

describe('entryCacheBytes: the entry cache only for a directory it can hold', () => {
  // 3,072 records of 1 KiB take 3.47 MiB as the cache counts them (RECORD_OVERHEAD each). They do not
  // compress, so an estimate of 2.5x their size on disk (7.5 MiB) would refuse a 4 MiB cache they fit.
  test('3 MiB of entry records (random, so not compressed): a 3 MiB cache is not made, a 4 MiB and a 16 MiB one are', async () => {
    const dir = await tempDir();
    const db = new Level<string, Buffer>(dir.path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    try {
      await db.open();
      const batch = db.batch();
      for (let n = 0; n < 3072; n += 1) batch.put(`${ENTRY_KEYS.gte}${String(n).padStart(6, '0')}`, randomBytes(1024));
      await batch.write();
      await (db as unknown as { compactRange(start: string, end: string): Promise<void> }).compactRange(ENTRY_KEYS.gte, ENTRY_KEYS.lt);
      assert.equal(await entryCacheBytes(db, 3), 0);
      assert.equal(await entryCacheBytes(db, 4), 4 * 2 ** 20);
      assert.equal(await entryCacheBytes(db, 16), 16 * 2 ** 20);
      assert.equal(await entryCacheBytes(db, 0), 0);
    } finally {
      await db.close();
      await dir.remove();
    }
  });

  test('a store opened with the size already decided (a serving thread) takes it and does not count again', async () => {
    const dir = await tempDir();
    try {
      const counted = await peopleStore(dir.path, 20);
      assert.equal(counted.entryCacheBytes, 16 * 2 ** 20, 'counted at open: the records fit the default 16 MiB');
      await counted.close();
      const decided = await DirectoryStore.open(dir.path, { entryCacheBytes: 0 });
      assert.equal(decided.entryCacheBytes, 0, 'the decision given, though the records fit');
      await decided.close();
    } finally {
      await dir.remove();
    }
  });
});

describe('DirectoryStore: the search bases known to exist', () => {
  test('without the record cache, a base found is not read again until a write finishes; a deleted base is missing at once', async () => {
    const dir = await tempDir();
    try {
      await (await peopleStore(dir.path, 2)).close();
      const store = await DirectoryStore.open(dir.path, { entryCacheBytes: 0 });
      try {
        const people = parseDn('ou=People,dc=example,dc=com');
        const user = parseDn('uid=user.1,ou=People,dc=example,dc=com');
        await store.requireExists(people);
        await store.requireExists(user);
        const hits = store.stats.baseCacheHits;
        await store.requireExists(people);
        await store.requireExists(user);
        assert.equal(store.stats.baseCacheHits, hits + 2, 'both answered from the bases kept');
        await deleteEntry(store, user);
        await assert.rejects(async () => store.requireExists(user), (error: Error & { code?: number }) => error.code === 32, 'noSuchObject');
        await store.requireExists(people);
        assert.equal(store.stats.baseCacheHits, hits + 2, 'the delete let every kept base go: People read again');
        await store.requireExists(people);
        assert.equal(store.stats.baseCacheHits, hits + 3);
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
