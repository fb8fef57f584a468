/**
 * Connections per client address (src/server/net/address-counts.ts), against a plain Map: admits up
 * to the limit, releases, addresses leaving the table when their last connection closes (so the
 * table never fills, however many addresses come and go), and a table shared by a worker thread.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { AddressCounts, clientAddress } from '../../../../src/server/net/address-counts.js';

test('admit up to the limit per address; release frees a place', () => {
  const counts = new AddressCounts(AddressCounts.allocate(16));
  assert.equal(counts.admit('10.0.0.1', 2), true);
  assert.equal(counts.admit('10.0.0.1', 2), true);
  assert.equal(counts.admit('10.0.0.1', 2), false);
  assert.equal(counts.admit('10.0.0.2', 2), true);
  counts.release('10.0.0.1');
  assert.equal(counts.count('10.0.0.1'), 1);
  assert.equal(counts.admit('10.0.0.1', 2), true);
});

test('random admits and releases over more than 100,000 distinct addresses agree with a Map, in a table for 32 connections', () => {
  const counts = new AddressCounts(AddressCounts.allocate(32, 1));
  const model = new Map<string, number>();
  let open = 0;
  let seed = 7;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let step = 0, next = 0; step < 400_000; step++) {
    const addresses = [...model.keys()];
    if (open < 32 && (addresses.length === 0 || random(2) === 0)) {
      const address = random(3) === 0 && addresses.length > 0 ? addresses[random(addresses.length)]! : `2001:db8::${(next++).toString(16)}`;
      const expected = (model.get(address) ?? 0) < 3;
      assert.equal(counts.admit(address, 3), expected, `admit ${address} at step ${step}`);
      if (expected) {
        model.set(address, (model.get(address) ?? 0) + 1);
        open += 1;
      }
    } else if (addresses.length > 0) {
      const address = addresses[random(addresses.length)]!;
      counts.release(address);
      const left = model.get(address)! - 1;
      if (left === 0) model.delete(address);
      else model.set(address, left);
      open -= 1;
    }
  }
  for (const [address, count] of model) assert.equal(counts.count(address), count, address);
});

test('an IPv4 client through an IPv6 socket counts as its IPv4 address', () => {
  assert.equal(clientAddress('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(clientAddress('2001:db8::1'), '2001:db8::1');
});

test('two threads sharing the table see one count', async () => {
  const buffer = AddressCounts.allocate(64);
  const counts = new AddressCounts(buffer);
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.module).then(({ AddressCounts }) => {
      const counts = new AddressCounts(workerData.buffer);
      let admitted = 0;
      for (let i = 0; i < 1000; i++) if (counts.admit('198.51.100.1', 1500)) admitted++;
      parentPort.postMessage(admitted);
    });`;
  const module = new URL('../../../../src/server/net/address-counts.js', import.meta.url).href;
  const worker = new Worker(source, { eval: true, workerData: { buffer, module } });
  let here = 0;
  for (let i = 0; i < 1000; i++) if (counts.admit('198.51.100.1', 1500)) here++;
  const there = await new Promise<number>((resolve) => worker.once('message', resolve));
  await worker.terminate();
  assert.equal(here + there, 1500);
  assert.equal(counts.count('198.51.100.1'), 1500);
});
