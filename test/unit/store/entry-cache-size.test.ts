/**
 * entryCacheBytes (src/store/level.ts): the entry cache is made when the entry records, counted as
 * the cache counts them, fit in it; not when they do not. Records of random bytes do not compress,
 * so an estimate from their size on disk times a fixed ratio would refuse records that fit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryCacheBytes, openLevel, type Db } from '../../../src/store/level.js';
import { entryKey } from '../../../src/store/keys.js';
import { RECORD_OVERHEAD } from '../../../src/store/stamped-cache.js';

const RECORDS = 400;
const RECORD_BYTES = 2000;
const MIB = 2 ** 20;

async function withRecords(run: (db: Db) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-entry-cache-'));
  const db = await openLevel(dir, {});
  try {
    await db.batch(Array.from({ length: RECORDS }, (_, i) => ({ type: 'put' as const, key: entryKey(`dc=com\x01uid=u${i}`), value: randomBytes(RECORD_BYTES) })));
    await (db as unknown as { compactRange(start: string, end: string): Promise<void> }).compactRange('e', 'f');
    await run(db);
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

test('records that fit the entry cache as it counts them get the cache, though on disk they would seem not to', async () => {
  await withRecords(async (db) => {
    const counted = RECORDS * (RECORD_BYTES + RECORD_OVERHEAD);
    assert.ok(counted < MIB, 'the records fit 1 MiB');
    const onDisk = await (db as unknown as { approximateSize(start: string, end: string): Promise<number> }).approximateSize('e', 'f');
    assert.ok(onDisk * 2.5 > MIB, `an estimate of 2.5x their ${onDisk} bytes on disk says they do not`);
    assert.equal(await entryCacheBytes(db, 1), MIB);
  });
});

test('records that do not fit get no cache, and 0 MiB is off', async () => {
  await withRecords(async (db) => {
    assert.equal(await entryCacheBytes(db, 0.5), 0);
    assert.equal(await entryCacheBytes(db, 0), 0);
  });
});
