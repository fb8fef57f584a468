/**
 * BatchedRecords (src/store/record-source.ts): the records of batches of keys, each step at once
 * while a batch lasts and a promise only for the next batch; keys without a record skipped; the
 * batches' iterator closed by return().
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BatchedRecords } from '../../../src/store/record-source.js';
import { EntryRecord } from '../../../src/store/entry-record.js';
import { encodeEntry } from '../../../src/store/codec.js';

const record = (key: string) => new EntryRecord(encodeEntry({ dn: `uid=${key},dc=example,dc=com`, attributes: [] }), key);

describe('BatchedRecords', () => {
  test('records of a batch come at once, the next batch through a promise; keys read as missing are skipped', async () => {
    let closed = false;
    async function* batches() {
      try {
        yield ['a', 'skip', 'b'];
        yield ['skip'];
        yield ['c'];
      } finally {
        closed = true;
      }
    }
    const read: string[] = [];
    const source = new BatchedRecords(batches(), (key) => {
      read.push(key);
      return key === 'skip' ? undefined : record(key);
    });
    const first = source.next();
    assert.ok(first instanceof Promise, 'the first batch is read');
    assert.equal((await first).value?.key, 'a');
    const second = source.next();
    assert.ok(!(second instanceof Promise), 'the rest of the batch at once');
    assert.equal(second.value?.key, 'b');
    const third = source.next();
    assert.ok(third instanceof Promise, 'a batch of missing keys, then the next');
    assert.equal((await third).value?.key, 'c');
    assert.deepEqual(await source.next(), { done: true, value: undefined });
    assert.deepEqual(read, ['a', 'skip', 'b', 'skip', 'c'], 'each key read once, when asked');
    assert.equal(closed, true);
  });

  test('return() closes the batches before their end; for-await reads it as any async iterable', async () => {
    let closed = false;
    async function* batches() {
      try {
        for (let n = 0; ; n += 1) yield [`k${n}`, `k${n}b`];
      } finally {
        closed = true;
      }
    }
    const source = new BatchedRecords(batches(), record);
    assert.equal((await source.next()).value?.key, 'k0');
    await source.return();
    assert.equal(closed, true);
    const keys: string[] = [];
    for await (const found of new BatchedRecords([['x', 'y'], ['z']], record)) keys.push(found.key!);
    assert.deepEqual(keys, ['x', 'y', 'z'], 'batches given as a plain list');
  });
});
