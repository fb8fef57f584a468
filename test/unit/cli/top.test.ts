/** `leveldap top`'s arithmetic: a cn=Monitor reading from its entries, rates and latency quantiles between two readings. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientEntry } from '../../../src/protocol/index.js';
import { readingOf } from '../../../src/cli/top/reading.js';
import { quantile, renderView, viewOf } from '../../../src/cli/top/view.js';

const entry = (dn: string, attributes: Record<string, string[]>): ClientEntry => ({ dn, attributes: new Map(Object.entries(attributes)) });

/** A cn=Monitor with `binds` successful SSHA512 binds: `fast` of them within 1 ms, the rest within 5 ms. */
function monitor(binds: number, fast: number, hits: number, misses: number): ClientEntry[] {
  return [
    entry('cn=Monitor', { objectClass: ['monitorServer'] }),
    entry('cn=Bind,cn=Operations,cn=Monitor', { monitorOpInitiated: [String(binds)], monitorOpCompleted: [String(binds)] }),
    entry('cn=Search,cn=Operations,cn=Monitor', { monitorOpInitiated: ['1'], monitorOpCompleted: ['0'] }),
    entry('cn=SSHA512,cn=Binds,cn=Monitor', {
      monitorCounter: [String(binds)],
      monitoredInfo: [`success=${binds}`, 'success seconds=0.5', `success le=0.001 count=${fast}`, `success le=0.005 count=${binds}`, 'invalid=0'],
    }),
    entry('cn=Current,cn=Connections,cn=Monitor', { monitorCounter: ['3'] }),
    entry('cn=Total,cn=Connections,cn=Monitor', { monitorCounter: ['10'] }),
    entry('cn=Hits,cn=Bind Cache,cn=Monitor', { monitorCounter: [String(hits)] }),
    entry('cn=Misses,cn=Bind Cache,cn=Monitor', { monitorCounter: [String(misses)] }),
    entry('cn=Max,cn=Threads,cn=Monitor', { monitoredInfo: ['2'] }),
    entry('cn=Uptime,cn=Time,cn=Monitor', { monitoredInfo: ['42'] }),
  ];
}

test('a reading takes operations, binds per scheme with their histogram, connections, cache and threads from the entries', () => {
  const reading = readingOf(monitor(100, 60, 5, 15), 0);
  assert.deepEqual(reading.operations.get('Bind'), { initiated: 100, completed: 100 });
  const ssha = reading.binds.get('SSHA512')?.get('success');
  assert.deepEqual(ssha, { count: 100, seconds: 0.5, buckets: [[0.001, 60], [0.005, 100]] });
  assert.deepEqual(reading.connections, { current: 3, total: 10, refused: 0 });
  assert.deepEqual(reading.cache, { hits: 5, misses: 15 });
  assert.equal(reading.threads, 2);
  assert.equal(reading.uptime, 42);
});

test('rates and quantiles are over the interval between two readings', () => {
  const before = readingOf(monitor(100, 60, 5, 15), 0);
  const now = readingOf(monitor(300, 160, 15, 25), 2000);
  const view = viewOf(now, before);
  assert.equal(view.seconds, 2);
  assert.equal(view.operationsPerSecond.Bind, 100);
  const ssha = view.schemes.find((scheme) => scheme.scheme === 'SSHA512');
  assert.equal(ssha?.bindsPerSecond, 100);
  assert.equal(ssha?.failedPerSecond, 0);
  // In the interval: 100 of 200 within 1 ms, the other 100 within 5 ms.
  assert.equal(ssha?.p50Ms, 1);
  assert.ok(Math.abs((ssha?.p99Ms ?? 0) - 4.92) < 1e-9, String(ssha?.p99Ms));
  assert.equal(view.cacheHitRate, 0.5);
  assert.match(renderView(view, 'localhost:1389'), /SSHA512 +100\.0 +0\.0 +1\.00 +4\.92/);
});

test('no binds in the interval: no quantile', () => {
  const series = { count: 5, seconds: 1, buckets: [[0.001, 5]] as [number, number][] };
  assert.equal(quantile(0.5, series, series), undefined);
});
