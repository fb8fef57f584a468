/**
 * Child process for the store's disk-full test (run with UV_THREADPOOL_SIZE=1, so LevelDB gets
 * the writes one at a time, in order). Opens a database, prints "ready", and on the line "go"
 * (the disk is full by then) hands LevelDB at once: a 64 KiB write, which cannot fit; a slow
 * PBKDF2, which holds the pool's thread while the failure reaches JavaScript and HEADROOM is
 * removed; then WRITES small writes, which find room and follow the broken log record. Prints
 * "ack N" or "fail N CODE MESSAGE" as each settles, then "done", and waits to be killed.
 * Usage: node disk-full-writer.js DIR HEADROOM WRITES
 */
import { pbkdf2 } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { DirectoryError, DirectoryStore } from '../../src/store/index.js';

const [dir, headroom, writes] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4])];
const store = await DirectoryStore.open(dir);
await store.putSetting('before', 'acknowledged before the disk was full');
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) if (line === 'go') break;

async function write(n: number, value: string): Promise<void> {
  try {
    await store.putSetting(`write-${n}`, value);
    process.stdout.write(`ack ${n}\n`);
  } catch (error) {
    rmSync(headroom, { force: true });
    process.stdout.write(`fail ${n} ${error instanceof DirectoryError ? error.code : '?'} ${(error as Error).message}\n`);
  }
}

const all = [write(0, 'x'.repeat(64 << 10))];
const held = new Promise((resolve) => pbkdf2('held', 'pool', 400_000, 32, 'sha256', resolve));
for (let n = 1; n <= writes; n += 1) all.push(write(n, `small ${n}`));
await Promise.all([...all, held]);
process.stdout.write('done\n');
setInterval(() => {}, 1000); // until killed: nothing closes the database
