/**
 * The cache of equality lookups (src/store/equality-cache.ts): answers kept only while no write
 * has finished, the oldest first out; and through the store, a repeated lookup reads no
 * index keys while every write (add, modify, delete) is seen by the next search at once.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EqualityCache, EQUALITY_CACHE_KEYS } from '../../../src/store/equality-cache.js';
import { DirectoryStore, deleteEntry, modifyEntry, parseDn, type Entry, type Modification } from '../../../src/store/index.js';
import { BASE, PEOPLE, person, tempDir } from '../../helpers/store.js';

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

describe('DirectoryStore: equality lookups through the cache', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  const ADMIN = { actor: 'cn=admin' };
  const change = (op: Modification['op'], attribute: string, value: string): Modification => ({ op, attribute, values: [Buffer.from(value)] });

  async function find(attribute: string, value: string): Promise<string[]> {
    const dns: string[] = [];
    const found: AsyncIterable<Entry> = store.search('dc=example,dc=com', 'sub', { equality: { attribute, value: Buffer.from(value) } });
    for await (const entry of found) dns.push(entry.dn);
    return dns;
  }

  before(async () => {
    dir = await tempDir();
    store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await store.add(PEOPLE);
    for (let n = 0; n < 20; n += 1) await store.add(person(n));
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
