/** leveldap_operations_total's samples (src/server/metrics/prometheus.ts): one series per kind and code, whenever it is read. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationSamples } from '../../../../src/server/metrics/prometheus.js';
import { allocateStats, kindIndex, StatsReader, statsLayout, ThreadStats } from '../../../../src/server/monitor/stats.js';

const layout = statsLayout(['SSHA512']);

test('operations by kind and code: unbind and abandon as code 0; never two samples of one kind and code, even read while a thread counts (review 2026-12-08)', () => {
  const buffer = allocateStats(layout, 1);
  const stats = new ThreadStats(buffer, layout, 0);
  const reader = new StatsReader(buffer, layout, 1);
  const search = kindIndex('search');
  for (let i = 0; i < 5; i++) {
    stats.initiated(search);
    stats.completed(search, 0);
  }
  stats.unanswered(kindIndex('unbind'));
  stats.unanswered(kindIndex('abandon'));
  stats.unanswered(kindIndex('abandon'));
  // A search's completion counted, its code not yet: what a scrape can read while a thread is between the two.
  stats.unanswered(search);
  const samples = operationSamples(reader);
  const labels = samples.map((sample) => JSON.stringify(sample.labels));
  assert.equal(new Set(labels).size, labels.length, `one sample per labels: ${labels.join(' ')}`);
  const value = (op: string, code: number) => samples.find((sample) => sample.labels['op'] === op && sample.labels['code'] === code)?.value;
  assert.equal(value('search', 0), 5);
  assert.equal(value('unbind', 0), 1);
  assert.equal(value('abandon', 0), 2);
});
