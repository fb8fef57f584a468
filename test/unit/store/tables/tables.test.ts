import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { crc32c, maskCrc } from '../../../../src/store/tables/crc32c.js';
import { leveldbHash } from '../../../../src/store/tables/bloom.js';
import { KeyOrderError, TableLoad } from '../../../../src/store/tables/load.js';
import { loadInRanges } from '../../../../src/store/tables/ranges.js';
import { RunWriter } from '../../../../src/store/run-files.js';
import { snappyAvailable } from '../../../../src/store/tables/snappy.js';

/** Tables need the snappy addon: skipped without it, unless LEVELDAP_REQUIRE_NATIVE=1 (.ci/run) makes that a failure. */
const skip = !snappyAvailable() && process.env.LEVELDAP_REQUIRE_NATIVE !== '1' ? 'native/snappy is not built' : false;
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';

describe('CRC-32C', () => {
  // LevelDB's util/crc32c_test.cc (from RFC 3720, section B.4).
  test('matches the published vectors', () => {
    assert.equal(crc32c(Buffer.alloc(32, 0)), 0x8a9136aa);
    assert.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43);
    assert.equal(crc32c(Buffer.from(Array.from({ length: 32 }, (_, i) => i))), 0x46dd794e);
    assert.equal(crc32c(Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i))), 0x113fdb5c);
  });

  test('continues over parts as over the whole', () => {
    const data = Buffer.from('hello world, a test of the CRC over parts');
    assert.equal(crc32c(data, 7, data.length, crc32c(data, 0, 7)), crc32c(data));
  });

  test('masks as LevelDB does, and the mask is not the identity', () => {
    const crc = crc32c(Buffer.from('foo'));
    assert.notEqual(maskCrc(crc), crc);
    assert.notEqual(maskCrc(maskCrc(crc)), crc);
  });
});

describe('LevelDB hash', () => {
  // LevelDB's util/hash_test.cc.
  test('matches the published vectors', () => {
    const seed = 0xbc9f1d34;
    assert.equal(leveldbHash(Buffer.alloc(0), seed), 0xbc9f1d34);
    assert.equal(leveldbHash(Buffer.from([0x62]), seed), 0xef1345c4);
    assert.equal(leveldbHash(Buffer.from([0xc3, 0x97]), seed), 0x5b663814);
    assert.equal(leveldbHash(Buffer.from([0xe2, 0x99, 0xa5]), seed), 0x323c078f);
    assert.equal(leveldbHash(Buffer.from([0xe1, 0x80, 0xb9, 0x32]), seed), 0xed21633a);
    const data5 = Buffer.alloc(48);
    for (const [at, byte] of [[0, 0x01], [1, 0xc0], [16, 0x14], [22, 0x04], [27, 0x14], [31, 0x18], [32, 0x28], [40, 0x02]] as const) data5[at] = byte;
    assert.equal(leveldbHash(data5, 0x12345678), 0xf333dabb);
  });
});

const key = (n: number): string => `e\x00dc=com\x01uid=user.${String(n).padStart(7, '0')}`;
const value = (n: number): Buffer => Buffer.from(`record ${n} `.repeat(n % 7));

/** A new database in a directory of its own holding one meta key, closed (reopen it with db.open()). */
async function databaseWithMetaKey(name: string): Promise<{ dir: string; db: Level<string, Buffer> }> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const db = new Level<string, Buffer>(dir, { valueEncoding: 'buffer' });
  await db.put('m\x00format', Buffer.from('2'));
  await db.close();
  return { dir, db };
}

async function writeTables(dir: string, count: number, tableBytes: number): Promise<void> {
  const load = new TableLoad(dir, tableBytes);
  load.add('a\x00first', Buffer.from('before the meta key'));
  for (let n = 0; n < count; n += 1) load.add(key(n), value(n));
  load.add(key(count - 1), Buffer.from('the last put wins'));
  load.add('m\x00format', Buffer.from('2'));
  load.add('z\x00é😀', Buffer.from('beyond ASCII'));
  load.finish();
}

describe('TableLoad', { skip }, () => {
  test('the snappy addon loaded (LEVELDAP_REQUIRE_NATIVE=1)', () => {
    assert.ok(snappyAvailable());
  });

  test('writes a database LevelDB opens, reads, compacts and writes to', async () => {
    const { dir, db } = await databaseWithMetaKey('tables');
    await writeTables(dir, 20_000, 16 << 10);
    await db.open();
    const listing = (db as unknown as { getProperty(name: string): string }).getProperty('leveldb.sstables');
    assert.match(listing, /--- level 6 ---\n( \d+:\d+\[.*\n){5,}/, 'many tables, all in the last level');
    assert.equal((await db.keys().all()).length, 20_003);
    for (const n of [0, 1, 999, 12_345, 19_998]) assert.deepEqual(await db.get(key(n)), value(n));
    assert.equal((await db.get(key(19_999)))?.toString(), 'the last put wins');
    assert.equal((await db.get('z\x00é😀'))?.toString(), 'beyond ASCII');
    assert.equal(await db.get(key(20_000)), undefined, 'an absent key is absent (the filters answer)');
    await db.put(key(5), Buffer.from('changed'));
    await db.del(key(6));
    await (db as unknown as { compactRange(a: string, b: string): Promise<void> }).compactRange('\x00', '\x7f');
    await db.close();
    await db.open();
    assert.equal((await db.get(key(5)))?.toString(), 'changed');
    assert.equal(await db.get(key(6)), undefined);
    assert.equal((await db.keys().all()).length, 20_002);
    await db.close();
    assert.ok(!readdirSync(dir).includes('MANIFEST-000002'), 'the old descriptor is gone once LevelDB opened the new one');
    rmSync(dir, { recursive: true, force: true });
  });

  test('refuses keys whose order as bytes differs, and abandoning leaves the database as it was', async () => {
    const { dir, db } = await databaseWithMetaKey('tables-order');
    const load = new TableLoad(dir);
    load.add('k\u{1f600}', Buffer.from('a'));
    load.add('k\ue000', Buffer.from('b')); // after in UTF-16, before in UTF-8
    assert.throws(() => load.finish(), KeyOrderError);
    load.abandon();
    assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.ldb')), [], 'the tables written are removed');
    await db.open();
    assert.deepEqual(await db.keys().all(), ['m\x00format']);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('over ranges in worker threads: tables of every range, one database, the records it held kept', async () => {
    const { dir, db } = await databaseWithMetaKey('tables-ranges');
    const runs = join(dir, 'runs');
    mkdirSync(runs);
    const writer = new RunWriter(runs, 200_000);
    for (let n = 0; n < 30_000; n += 1) writer.add({ type: 'put', key: key((n * 7919) % 30_000), value: value(n) });
    writer.spill();
    await loadInRanges(dir, { paths: writer.runs, marks: writer.marks }, [{ type: 'put', key: 'm\x00format', value: Buffer.from('2') }], 32 << 10);
    await db.open();
    const listing = (db as unknown as { getProperty(name: string): string }).getProperty('leveldb.sstables');
    assert.match(listing, /--- level 6 ---\n \d+:/);
    const numbers = [...listing.matchAll(/^ (\d+):/gm)].map((match) => Number(match[1]));
    assert.ok(numbers.some((number) => number > 1_000_000), `tables numbered by more than one range: ${numbers}`);
    const keys = await db.keys().all();
    assert.equal(keys.length, 30_001);
    assert.deepEqual(keys.slice(0, 3), [key(0), key(1), key(2)]);
    assert.equal((await db.get('m\x00format'))?.toString(), '2');
    for (let n = 0; n < 30_000; n += 1111) assert.deepEqual(await db.get(key((n * 7919) % 30_000)), value(n));
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a range\'s worker failing on a file: the error keeps its code and call, and no table is left', async () => {
    const { dir, db } = await databaseWithMetaKey('tables-lost-run');
    const before = readdirSync(dir).sort();
    const runs = join(dir, 'runs');
    mkdirSync(runs);
    const writer = new RunWriter(runs, 200_000);
    for (let n = 0; n < 30_000; n += 1) writer.add({ type: 'put', key: key((n * 7919) % 30_000), value: value(n) });
    writer.spill();
    rmSync(writer.runs[writer.runs.length - 1]!);
    await assert.rejects(loadInRanges(dir, { paths: writer.runs, marks: writer.marks }, [], 32 << 10), { code: 'ENOENT', syscall: 'open' });
    assert.deepEqual(readdirSync(dir).filter((name) => name !== 'runs').sort(), before, 'the tables written are removed');
    await db.open();
    assert.equal((await db.get('m\x00format'))?.toString(), '2', 'the database as it was');
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('killed before its MANIFEST is current, a load leaves the database as it was, and LevelDB deletes its tables', async () => {
    const { dir, db } = await databaseWithMetaKey('tables-killed');
    const load = new TableLoad(dir, 16 << 10);
    for (let n = 0; n < 5_000; n += 1) load.add(key(n), value(n));
    const written = load.finishTables(); // what a load killed before describeLoad leaves
    assert.ok(written.length > 1);
    const names = written.map((table) => `${String(table.number).padStart(6, '0')}.ldb`);
    assert.ok(names.every((name) => readdirSync(dir).includes(name)));
    await db.open();
    assert.deepEqual(await db.keys().all(), ['m\x00format']);
    const live = [...(db as unknown as { getProperty(name: string): string }).getProperty('leveldb.sstables').matchAll(/^ (\d+):/gm)].map((match) => Number(match[1]));
    await db.close();
    const left = readdirSync(dir).filter((name) => name.endsWith('.ldb')).map((name) => Number.parseInt(name, 10));
    assert.deepEqual(left, live, 'no table but LevelDB\'s own is left (it may reuse a number the load had used)');
    assert.ok(names.some((name) => !readdirSync(dir).includes(name)), 'the load\'s tables were deleted');
    rmSync(dir, { recursive: true, force: true });
  });
});
