/**
 * The write gate (src/store/write-gate.ts) on its own: a failed write closes it for every holder
 * of its memory (a serving thread each, here two owners of one buffer, and a real worker thread),
 * refused writes are counted, and a write that succeeded while another admitted before it was in
 * flight is acknowledged only once that one's outcome is known, and not when it failed.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { WriteGate } from '../../../src/store/index.js';
import { FULL, MAX_IN_FLIGHT, type Pass } from '../../../src/store/write-gate.js';

function admitted(gate: WriteGate): Pass {
  const pass = gate.admit();
  assert.ok(pass && pass !== FULL, 'admitted');
  return pass;
}

/** Whether the promise has settled after the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => { done = true; }, () => { done = true; });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('WriteGate', () => {
  test('a write alone is durable at once; a failure closes the gate until reopen, refusals are counted', async () => {
    const gate = new WriteGate();
    const first = admitted(gate);
    assert.equal(await gate.succeeded(first), true);
    const failing = admitted(gate);
    assert.equal(gate.failed(failing), true, 'the first failure closes the gate');
    assert.equal(gate.open, false);
    assert.equal(gate.admit(), undefined);
    assert.equal(gate.admit(), undefined);
    assert.equal(gate.refused, 2);
    gate.reopen();
    const after = admitted(gate);
    assert.equal(await gate.succeeded(after), true, 'a write admitted after the reopen is durable');
  });

  test('a success waits for the writes admitted before it finished, and is not durable when one of them failed', async () => {
    const gate = new WriteGate();
    const earlier = admitted(gate);
    const later = admitted(gate);
    const verdict = gate.succeeded(later);
    assert.equal(await settled(verdict), false, 'the later write waits for the earlier one');
    gate.failed(earlier);
    assert.equal(await verdict, false, 'it may follow the failed record in the log: not acknowledged');
  });

  test('a success waits for writes admitted before it, and is durable when they succeed', async () => {
    const gate = new WriteGate();
    const earlier = admitted(gate);
    const later = admitted(gate);
    const verdict = gate.succeeded(later);
    assert.equal(await settled(verdict), false);
    assert.equal(await gate.succeeded(earlier), true);
    assert.equal(await verdict, true);
  });

  test('a write admitted before a failure and finishing after it is not durable, even after a reopen', async () => {
    const gate = new WriteGate();
    const inFlight = admitted(gate);
    gate.failed(admitted(gate));
    gate.reopen();
    assert.equal(await gate.succeeded(inFlight), false);
  });

  test('two holders of one buffer (two threads) see one gate; a dead holder\'s writes are abandoned', async () => {
    const buffer = WriteGate.allocate();
    const one = new WriteGate(buffer, 1);
    const two = new WriteGate(buffer, 2);
    assert.ok(two.admit(), 'owner 2 admits a write, then dies with it in flight');
    const mine = admitted(one);
    const verdict = one.succeeded(mine);
    assert.equal(await settled(verdict), false, 'waits for the other holder\'s write');
    assert.equal(one.abandon(2), 1, 'owner 2 had one write in flight');
    assert.equal(await verdict, false, 'an abandoned write counts as failed');
    assert.equal(two.open, false, 'closed for every holder');
    assert.equal(two.admit(), undefined);
    assert.equal(one.refused, 1);
  });

  test('a success does not wait for writes admitted after it', async () => {
    const gate = new WriteGate();
    const first = admitted(gate);
    admitted(gate); // still in flight
    assert.equal(await gate.succeeded(first), true);
  });

  test('tickets wrap around the ring: thousands of writes, some concurrent, all finish', async () => {
    const gate = new WriteGate();
    for (let round = 0; round < 300; round += 1) {
      const passes = Array.from({ length: 20 }, () => admitted(gate));
      const verdicts = await Promise.all(passes.reverse().map((pass) => gate.succeeded(pass)));
      assert.ok(verdicts.every(Boolean));
    }
  });

  test(`with ${MAX_IN_FLIGHT} writes in flight the next is told to wait, and is admitted once the oldest finished`, async () => {
    const gate = new WriteGate();
    const passes = Array.from({ length: MAX_IN_FLIGHT }, () => admitted(gate));
    assert.equal(gate.admit(), FULL);
    const room = gate.room();
    const verdicts = passes.slice(1).map((pass) => gate.succeeded(pass));
    assert.equal(await settled(room), false, 'the oldest is still in flight');
    assert.equal(gate.admit(), FULL);
    verdicts.push(gate.succeeded(passes[0]!));
    await room;
    verdicts.push(gate.succeeded(admitted(gate)));
    assert.ok((await Promise.all(verdicts)).every(Boolean));
  });

  test('a failure in a worker thread closes the gate of the main thread, and wakes its waiting write', async () => {
    const gate = new WriteGate(WriteGate.allocate(), 1);
    const module = new URL('../../../src/store/write-gate.js', import.meta.url).href;
    const source = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(${JSON.stringify(module)}).then(async ({ WriteGate }) => {
        const gate = new WriteGate(workerData, 2);
        const pass = gate.admit();
        parentPort.postMessage('admitted');
        parentPort.once('message', () => parentPort.postMessage(gate.failed(pass)));
      });`;
    const worker = new Worker(source, { eval: true, workerData: gate.buffer });
    const next = () => new Promise((resolve) => worker.once('message', resolve));
    try {
      assert.equal(await next(), 'admitted');
      const mine = admitted(gate);
      const verdict = gate.succeeded(mine);
      assert.equal(await settled(verdict), false, 'waits for the worker\'s write, admitted first');
      worker.postMessage('fail');
      assert.equal(await next(), true, 'the worker\'s failure closed the gate');
      assert.equal(gate.open, false, 'closed for this thread too');
      assert.equal(await verdict, false, 'woken by the worker, and not durable');
    } finally {
      await worker.terminate();
    }
  });
});
