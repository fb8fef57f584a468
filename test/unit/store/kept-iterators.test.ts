/**
 * Iterators over the equality index kept between lookups (src/store/kept-iterators.ts): one is
 * lent again only while no write has finished since it was made, one lookup at a time, and one
 * that did not end cleanly is closed; through the store, lookups of values the cache does not hold
 * see every write at once.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Level } from 'level';
import { KeptIterators } from '../../../src/store/kept-iterators.js';
import type { Db } from '../../../src/store/level.js';
import { type DirectoryStore, deleteEntry, modifyEntry, parseDn } from '../../../src/store/index.js';
import { equalDns, peopleStore, person, tempDir } from '../../helpers/store.js';

describe('KeptIterators', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let db: Db;
  before(async () => {
    dir = await tempDir();
    db = new Level<string, Buffer>(dir.path, { keyEncoding: 'utf8', valueEncoding: 'buffer' }) as unknown as Db;
    await db.open();
    await db.batch([{ type: 'put', key: 'i\0a', value: Buffer.from('1') }, { type: 'put', key: 'i\0b', value: Buffer.from('2') }]);
  });
  after(async () => { await db.close(); await dir.remove(); });

  test('an iterator given back is lent again while no write finished, and not after', async () => {
    let settled = 0;
    const kept = new KeptIterators(() => db.keys({ gte: 'i\0', lt: 'i\x01' }), () => settled);
    const first = kept.take();
    first.iterator.seek('i\0b');
    assert.deepEqual(await first.iterator.nextv(4), ['i\0b']);
    kept.give(first, true);
    const again = kept.take();
    assert.equal(again.iterator, first.iterator, 'the same iterator, no write since');
    again.iterator.seek('i\0a');
    assert.deepEqual(await again.iterator.nextv(4), ['i\0a', 'i\0b'], 'a seek after the end reads again');
    kept.give(again, true);
    await db.put('i\0c', Buffer.from('3'));
    settled += 1;
    const fresh = kept.take();
    assert.notEqual(fresh.iterator, first.iterator, 'a write finished: a new iterator');
    fresh.iterator.seek('i\0a');
    assert.deepEqual(await fresh.iterator.nextv(4), ['i\0a', 'i\0b', 'i\0c'], 'it sees the write');
    kept.give(fresh, true);
  });

  test('iterators lent at once are distinct; one whose lookup failed is not lent again', () => {
    const kept = new KeptIterators(() => db.keys({ gte: 'i\0', lt: 'i\x01' }), () => 0);
    const a = kept.take();
    const b = kept.take();
    assert.notEqual(a.iterator, b.iterator);
    kept.give(a, false);
    kept.give(b, true);
    assert.equal(kept.take().iterator, b.iterator);
    assert.notEqual(kept.take().iterator, a.iterator);
  });
});

describe('DirectoryStore: lookups through kept iterators see every write', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  const ADMIN = { actor: 'cn=admin' };
  const find = (attribute: string, value: string) => equalDns(store, attribute, value);

  before(async () => {
    dir = await tempDir();
    store = await peopleStore(dir.path, 40);
  });
  after(async () => { await store.close(); await dir.remove(); });

  test('values asked once each (the cache holds none of them), between adds, modifies and deletes', async () => {
    const present = new Set(Array.from({ length: 40 }, (_, n) => n));
    for (let round = 0; round < 60; round += 1) {
      const n = (round * 7) % 50;
      assert.deepEqual(await find('uid', `user.${n}`), present.has(n) ? [`uid=user.${n},ou=People,dc=example,dc=com`] : [], `round ${round}, user.${n}`);
      const dn = parseDn(`uid=user.${n},ou=People,dc=example,dc=com`);
      if (round % 3 === 0 && present.has(n)) {
        await deleteEntry(store, dn);
        present.delete(n);
      } else if (round % 3 === 1 && !present.has(n)) {
        await store.add(person(n));
        present.add(n);
      } else if (present.has(n)) {
        await modifyEntry(store, dn, [{ op: 'replace', attribute: 'mail', values: [Buffer.from(`round${round}@example.com`)] }], ADMIN);
        assert.deepEqual(await find('mail', `round${round}@example.com`), [`uid=user.${n},ou=People,dc=example,dc=com`], `round ${round}: the new mail`);
      }
    }
  });
});
