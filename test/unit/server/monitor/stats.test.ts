/** The monitoring counters: per-thread slices summed by the reader, histogram buckets, result codes, scheme names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import {
  allocateStats, BIND_BUCKETS, bucketOf, CODES, kindIndex, NO_SCHEME, SLOT, StatsReader, statsLayout, ThreadStats,
} from '../../../../src/server/monitor/stats.js';

const layout = statsLayout(['SSHA512', 'PBKDF2-SHA256']);

test('the layout puts the no-scheme first and gives every part its own slots', () => {
  assert.deepEqual(layout.schemes, [NO_SCHEME, 'SSHA512', 'PBKDF2-SHA256']);
  const starts = [layout.initiated, layout.completed, layout.results, layout.binds, layout.latency, layout.latencySum, layout.size];
  assert.deepEqual([...starts].sort((a, b) => a - b), starts, 'parts in order, none overlapping');
  assert.ok(layout.initiated > Math.max(...Object.values(SLOT)));
});

test('each thread counts in its own slice; the reader sums them, or reads one', () => {
  const buffer = allocateStats(layout, 2);
  const [zero, one] = [new ThreadStats(buffer, layout, 0), new ThreadStats(buffer, layout, 1)];
  const reader = new StatsReader(buffer, layout, 2);
  const bind = kindIndex('bind');
  for (let i = 0; i < 3; i += 1) zero.initiated(bind);
  one.initiated(bind);
  zero.completed(bind, 0);
  one.completed(bind, 49);
  zero.sent(100, 1);
  one.sent(20);
  assert.equal(reader.initiated(bind), 4);
  assert.equal(reader.completed(bind), 2);
  assert.equal(reader.results(bind, 0), 1);
  assert.equal(reader.results(bind, 49), 1);
  assert.equal(reader.value(SLOT.operationsRunning), 2, 'two binds still running');
  assert.equal(reader.value(SLOT.bytesSent), 120);
  assert.equal(reader.value(SLOT.pdusSent), 2);
  assert.equal(reader.value(SLOT.entriesSent), 1);
  assert.equal(reader.value(SLOT.bytesSent, 1), 20);
});

test('Unbind and Abandon are initiated and completed at once, with no result and nothing left running', () => {
  const buffer = allocateStats(layout, 1);
  const stats = new ThreadStats(buffer, layout, 0);
  const reader = new StatsReader(buffer, layout, 1);
  stats.unanswered(kindIndex('unbind'));
  assert.equal(reader.initiated(kindIndex('unbind')), 1);
  assert.equal(reader.completed(kindIndex('unbind')), 1);
  assert.equal(reader.value(SLOT.operationsRunning), 0);
  assert.equal(reader.results(kindIndex('unbind'), 0), 0);
});

test('result codes beyond the table share its last slot; an unknown kind counts as extended', () => {
  const buffer = allocateStats(layout, 1);
  const stats = new ThreadStats(buffer, layout, 0);
  const reader = new StatsReader(buffer, layout, 1);
  stats.completed(kindIndex('search'), 4096);
  stats.completed(kindIndex('search'), 200);
  assert.equal(reader.results(kindIndex('search'), CODES - 1), 2);
  assert.equal(kindIndex('nonsense'), kindIndex('extended'));
});

test('binds count by scheme (any case) and result, with their latency in the right bucket', () => {
  const buffer = allocateStats(layout, 1);
  const stats = new ThreadStats(buffer, layout, 0);
  const reader = new StatsReader(buffer, layout, 1);
  const ssha = stats.schemeOf('ssha512');
  assert.equal(ssha, 1);
  assert.equal(stats.schemeOf(undefined), 0);
  assert.equal(stats.schemeOf('NOT-A-SCHEME'), 0);
  stats.bind(ssha, 'success', 0.0002);
  stats.bind(ssha, 'success', 0.003);
  stats.bind(ssha, 'invalid', 10);
  assert.equal(reader.binds(ssha, 'success'), 2);
  assert.equal(reader.binds(ssha, 'invalid'), 1);
  assert.equal(reader.binds(0, 'success'), 0);
  const histogram = reader.latency(ssha, 'success');
  assert.equal(histogram.count, 2);
  assert.ok(Math.abs(histogram.sum - 0.0032) < 1e-12);
  assert.equal(histogram.buckets[0], 1, '0.2 ms in the first bucket (<= 0.5 ms)');
  assert.equal(histogram.buckets[BIND_BUCKETS.indexOf(0.005)], 1, '3 ms in the <= 5 ms bucket');
  assert.equal(reader.latency(ssha, 'invalid').buckets.at(-1), 1, '10 s beyond the last bound');
});

test('a latency on a bound falls in that bound\'s bucket (Prometheus: le is inclusive)', () => {
  assert.equal(bucketOf(0), 0);
  assert.equal(bucketOf(BIND_BUCKETS[0]), 0);
  assert.equal(bucketOf(0.001), 1);
  assert.equal(bucketOf(0.0011), 2);
  assert.equal(bucketOf(Infinity), BIND_BUCKETS.length);
});

test('counts written in a worker thread are read in this one', async () => {
  const buffer = allocateStats(layout, 2);
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    const stats = new Float64Array(workerData.buffer, workerData.offset, workerData.size);
    for (let i = 0; i < 1000; i += 1) stats[workerData.slot] += 1;
    parentPort.postMessage('done');`;
  const worker = new Worker(source, {
    eval: true, workerData: { buffer, offset: layout.size * Float64Array.BYTES_PER_ELEMENT, size: layout.size, slot: SLOT.bytesSent },
  });
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  const reader = new StatsReader(buffer, layout, 2);
  assert.equal(reader.value(SLOT.bytesSent), 1000);
  assert.equal(reader.value(SLOT.bytesSent, 1), 1000);
  assert.equal(reader.value(SLOT.bytesSent, 0), 0);
});
