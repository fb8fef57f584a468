import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { BulkLoader, DirectoryError, DirectoryStore, SortedLoad } from '../../../src/store/index.js';
import { mergeRuns, RECORD_COST_BYTES, RunWriter, splitKeys, startOffset, type RunOp } from '../../../src/store/run-files.js';
import { snappyAvailable } from '../../../src/store/tables/snappy.js';
import { BASE, PEOPLE, assertConsistent, dns, entry, equalDns, person, tempDir } from '../../helpers/store.js';

/** A load writes its tables itself with the snappy addon only (without it, through LevelDB); LEVELDAP_REQUIRE_NATIVE=1 (.ci/run) insists. */
const skipTables = !snappyAvailable() && process.env.LEVELDAP_REQUIRE_NATIVE !== '1';

/** LevelDB's listing of its tables by level, each with its first and last key (escaped). */
async function sstables(path: string): Promise<string> {
  const db = new Level(path);
  await db.open();
  const listing = (db as unknown as { getProperty(name: string): string }).getProperty('leveldb.sstables');
  await db.close();
  return listing;
}

const put = (key: string, value = ''): RunOp => ({ type: 'put', key, value: Buffer.from(value) });

/** Keys with shared prefixes, characters beyond ASCII and beyond the BMP, in a scrambled order. */
function scrambledKeys(count: number): string[] {
  const keys: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const mixed = (n * 7919) % count;
    keys.push(`${'eic'[mixed % 3]}\x00dc=com\x01uid=${mixed % 5 === 0 ? 'é😀' : 'user'}.${mixed}`);
  }
  return keys;
}

/** `count` scrambled keys, each put with a value naming it, written as runs of `budget` bytes in `dir`. */
function scrambledRuns(dir: string, budget: number, count: number): { writer: RunWriter; keys: string[] } {
  const writer = new RunWriter(dir, budget);
  const keys = scrambledKeys(count);
  for (const key of keys) writer.add(put(key, `value of ${key}`));
  writer.spill();
  return { writer, keys };
}

describe('sorted runs', () => {
  test('the merge gives every operation once, in key order, across many runs', async () => {
    const dir = await tempDir();
    const { writer, keys } = scrambledRuns(dir.path, 2_000, 3_000);
    assert.ok(writer.runs.length > 20, `${writer.runs.length} runs`);
    const merged = [...mergeRuns(writer.runs, 128)].flat();
    assert.deepEqual(merged.map((op) => op.key), [...keys].sort());
    for (const op of merged) assert.equal(op.value.toString(), `value of ${op.key}`);
    await dir.remove();
  });

  test('equal keys: a run holds the last put of each, and the merge gives the runs in order, so the last put wins', async () => {
    const dir = await tempDir();
    const writer = new RunWriter(dir.path, 200);
    for (let n = 0; n < 30; n += 1) writer.add(put('k', `v${n}`));
    writer.spill();
    assert.equal(writer.runs.length, 15, 'two puts a run');
    assert.deepEqual([...mergeRuns(writer.runs, 7)].flat().map((op) => op.value.toString()), Array.from({ length: 15 }, (_, n) => `v${2 * n + 1}`));
    await dir.remove();
  });

  test('within a run, a put with no value after one with a value wins, and the other way round', async () => {
    const dir = await tempDir();
    const writer = new RunWriter(dir.path, 1 << 20);
    for (const [key, value] of [['a', 'x'], ['a', ''], ['b', ''], ['b', 'y'], ['c', 'z'], ['c', ''], ['c', 'w'], ['a', ''], ['b', '']]) writer.add(put(key!, value));
    writer.spill();
    const merged = [...mergeRuns(writer.runs, 10)].flat();
    assert.deepEqual(merged.map((op) => [op.key, op.value.toString()]), [['a', ''], ['b', ''], ['c', 'w']]);
    await dir.remove();
  });

  test('merged range by range from the marks, the runs give the whole merge, cut where the split keys say', async () => {
    const dir = await tempDir();
    const { writer } = scrambledRuns(dir.path, 20_000, 5_000);
    assert.ok(writer.runs.length > 5, `${writer.runs.length} runs`);
    const whole = [...mergeRuns(writer.runs, 128)].flat().map((op) => op.key);
    const splits = splitKeys(writer.marks, 3);
    assert.equal(splits.length, 2);
    const ranges = [{ to: splits[0] }, { from: splits[0], to: splits[1] }, { from: splits[1] }];
    const parts = ranges.map((range) => {
      const starts = writer.marks.map((marks) => startOffset(marks, range.from));
      return [...mergeRuns(writer.runs, 128, range, starts)].flat().map((op) => op.key);
    });
    assert.deepEqual(parts.flat(), whole);
    for (const part of parts) assert.ok(part.length > whole.length / 6, `ranges of comparable sizes: ${parts.map((p) => p.length)}`);
    assert.ok(writer.marks.every((marks, i) => marks.length > 1 && startOffset(marks, splits[1]) > 0 || i === writer.runs.length - 1), 'a later range starts inside the runs');
    await dir.remove();
  });

  test('the split keys cut the runs into ranges of comparable cost to write (records and bytes), not of comparable counts', async () => {
    const dir = await tempDir();
    const writer = new RunWriter(dir.path, 200_000);
    // a load's shape: an entry's record of 1 KB under e, nine small index keys under i
    for (let n = 0; n < 3_000; n += 1) {
      writer.add(put(`e\x00uid=user.${n}`, 'x'.repeat(1_000)));
      for (let k = 0; k < 9; k += 1) writer.add(put(`i\x00attr${k}\x00user.${n}`));
    }
    writer.spill();
    const [split] = splitKeys(writer.marks, 2);
    assert.ok(split !== undefined);
    const ranges = [{ to: split }, { from: split }].map((range) => {
      const starts = writer.marks.map((marks) => startOffset(marks, range.from));
      return [...mergeRuns(writer.runs, 128, range, starts)].flat();
    });
    const costs = ranges.map((ops) => ops.reduce((sum, op) => sum + op.key.length + op.value.length + RECORD_COST_BYTES, 0));
    const [first, second] = costs as [number, number];
    assert.ok(Math.min(first, second) > 0.4 * (first + second), `cost per range: ${costs}, split at ${JSON.stringify(split)}`);
    const counts = ranges.map((ops) => ops.length);
    assert.ok(Math.min(...counts) < 0.3 * (counts[0]! + counts[1]!), `not cut by counts: ${counts}`);
    await dir.remove();
  });

  test('a record larger than the read and write blocks', async () => {
    const dir = await tempDir();
    const writer = new RunWriter(dir.path, 1 << 30);
    const big = Buffer.alloc(3 << 20, 7);
    writer.add(put('b', 'small'));
    writer.add({ type: 'put', key: 'a', value: big });
    writer.add(put('c', 'small'));
    writer.spill();
    const merged = [...mergeRuns(writer.runs, 10)].flat();
    assert.deepEqual(merged.map((op) => op.key), ['a', 'b', 'c']);
    assert.ok(merged[0]!.value.equals(big));
    await dir.remove();
  });
});

/** A sorted load into a new database (runs of 4 KiB), its base and ou=People added. */
async function loadStarted() {
  const dir = await tempDir();
  const store = await DirectoryStore.open(join(dir.path, 'db'));
  const runs = join(dir.path, 'db', 'import-runs');
  const target = await SortedLoad.over(store, runs, true, 4_096);
  const loader = new BulkLoader(target, { batchEntries: 5 });
  assert.deepEqual(await loader.addAll([BASE, PEOPLE]), [undefined, undefined]);
  return { dir, store, runs, target, loader };
}

describe('SortedLoad', () => {
  test('checks every entry exactly while nothing is in the database yet, then stores it all in key order', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(join(dir.path, 'db'));
    const runs = join(dir.path, 'db', 'import-runs');
    const target = await SortedLoad.over(store, runs, true, 4_096);
    assert.ok(target instanceof SortedLoad);
    const loader = new BulkLoader(target, { batchEntries: 5 });
    assert.deepEqual(await loader.addAll([BASE, PEOPLE]), [undefined, undefined]);
    for (let n = 0; n < 300; n += 1) await loader.add(person(n));
    assert.equal((await dns(store, 'dc=example,dc=com', 'sub')).length, 0, 'nothing in the database before the load completes');
    const late = await loader.addAll([
      person(3),
      entry('uid=a,ou=Missing,dc=example,dc=com', { objectClass: 'account', uid: 'a' }),
      entry('ou=Groups,dc=example,dc=com', { objectClass: 'organizationalUnit', ou: 'Groups' }),
    ]);
    assert.ok(late[0] instanceof DirectoryError && late[0].code === 68, 'a duplicate of an entry only the ledger knows');
    assert.ok(late[1] instanceof DirectoryError && late[1].code === 32, 'a missing parent');
    assert.equal(late[2], undefined, 'a child of an entry placed long before');
    assert.ok(readdirSync(runs).filter((name) => name.startsWith('run-')).length > 10, 'several runs');
    await loader.finish();
    assert.equal(existsSync(runs), false, 'the runs are removed');
    assert.equal((await dns(store, 'dc=example,dc=com', 'sub')).length, 303);
    assert.deepEqual(await equalDns(store, 'uid', 'user.217'), ['uid=user.217,ou=People,dc=example,dc=com']);
    assert.equal((await dns(store, 'ou=people,dc=example,dc=com', 'one')).length, 300);
    await store.close();
    // LevelDB's log of the load (opening the database again starts a new one)
    assert.doesNotMatch(readFileSync(join(dir.path, 'db', 'LOG'), 'utf8'), /Compacting/, 'no table overlapped another');
    await assertConsistent(join(dir.path, 'db'), store.indexed);
    const listing = await sstables(join(dir.path, 'db'));
    if (!skipTables) assert.match(listing, /--- level 6 ---\n \d+:\d+\['c\\x00/, `the load's tables, written straight to the last level: ${listing}`);
    await dir.remove();
  });

  test('once its runs cannot be written, the load refuses every later write instead of writing into the database', async () => {
    const { dir, store, runs, target, loader } = await loadStarted();
    rmSync(runs, { recursive: true, force: true }); // the next run has nowhere to go
    await assert.rejects(async () => { for (let n = 0; n < 100; n += 1) await loader.add(person(n)); }, /cannot keep the sorted runs/);
    await assert.rejects(target.write([{ type: 'put', key: 'e\x00late', value: Buffer.from('x') }], false), /cannot keep the sorted runs/);
    assert.equal(await store.hasEntries(), false, 'nothing reached the database');
    await store.close();
    await dir.remove();
  });

  test('a run lost before the merge stops the load with the file\'s error, its files removed, the database as it was', async () => {
    const { dir, store, runs, loader } = await loadStarted();
    for (let n = 0; n < 300; n += 1) await loader.add(person(n));
    const first = readdirSync(runs).find((name) => name.startsWith('run-'));
    assert.ok(first !== undefined, 'a run was written');
    rmSync(join(runs, first));
    await assert.rejects(loader.finish(), /^StoreError: cannot keep the sorted runs of this load in .*ENOENT/);
    assert.equal(existsSync(runs), false, 'the runs are removed');
    assert.equal(await store.hasEntries(), false, 'nothing reached the database');
    await store.close();
    await dir.remove();
  });

  test('keys whose order as UTF-8 bytes differs from JavaScript\'s go through LevelDB, and all are stored', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(join(dir.path, 'db'));
    const target = await SortedLoad.over(store, join(dir.path, 'db', 'import-runs'), true, 4_096);
    assert.ok(target instanceof SortedLoad);
    const keys = ['i\x00x\x00\u{1f600}', 'i\x00x\x00\ue000', ...Array.from({ length: 200 }, (_, n) => `i\x00x\x00k${n}`)];
    await target.write(keys.map((key) => ({ type: 'put', key, value: Buffer.from(key) })), false);
    await target.complete();
    await store.close();
    const db = new Level<string, string>(join(dir.path, 'db'));
    for (const key of keys) assert.equal(await db.get(key), key);
    await db.close();
    assert.doesNotMatch(await sstables(join(dir.path, 'db')), /--- level 6 ---\n \d/, 'not written as tables straight into the last level');
    await dir.remove();
  });

  test('a database that holds entries is loaded into directly, and a killed load\'s runs are removed', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(join(dir.path, 'db'));
    await store.add(BASE, { allowNewSuffix: true });
    const runs = join(dir.path, 'db', 'import-runs');
    mkdirSync(runs);
    writeFileSync(join(runs, 'run-0'), 'left by a killed load');
    assert.equal(await SortedLoad.over(store, runs, true), store);
    assert.equal(existsSync(runs), false);
    await store.close();
    await dir.remove();
  });
});
