import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { csvHeader, csvRow, jsonSummary, tableHeader, tableRow } from '../../../src/authrate/report.js';
import { Stats, type StatsRow } from '../../../src/authrate/stats.js';

const ROW: StatsRow = {
  elapsedSeconds: 5.0004, recentThroughput: 20306, averageThroughput: 20306, recentResponseMs: 0.469,
  averageResponseMs: 0.469, percentilesMs: [11.4, 38.01, 55.05], errorsPerSecond: 0, bindTimePercent: 62.54,
  entriesPerSearch: 1.25,
};

describe('authrate report', () => {
  test('the table is the PingDS layout, column width 8', () => {
    assert.deepEqual([...tableHeader([99.9, 99.99, 99.999]), tableRow(ROW)], [
      '-------------------------------------------------------------------------------',
      '|     Throughput    |                 Response Time                |          |',
      '|    (ops/second)   |                (milliseconds)                |          |',
      '|   recent  average |   recent  average    99.9%   99.99%  99.999% |  err/sec |',
      '-------------------------------------------------------------------------------',
      '|  20306.0  20306.0 |    0.469    0.469    11.40    38.01    55.05 |      0.0 |',
    ]);
  });

  test('other percentiles widen the table and keep the lines aligned', () => {
    const lines = [...tableHeader([50]), tableRow({ ...ROW, percentilesMs: [1.234] })];
    assert.ok(lines.every((line) => line.length === lines[0]!.length));
    assert.match(lines[3]!, /\| {3}recent {2}average {6}50% \|/);
  });

  test('search-then-bind adds "bind time %" under "Additional Statistics", in the table and the CSV', () => {
    const lines = [...tableHeader([99.9, 99.99, 99.999], 'bindTime'), tableRow(ROW, 'bindTime')];
    assert.ok(lines.every((line) => line.length === lines[0]!.length), lines.join('\n'));
    assert.match(lines[1]!, /\| +Additional +\|$/);
    assert.match(lines[2]!, /\| +Statistics +\|$/);
    assert.match(lines[3]!, /\| {2}err\/sec bind time % \|$/);
    assert.match(lines[5]!, /\| +0\.0 +62\.5 \|$/);
    assert.match(csvRow(ROW, 'bindTime'), /,0\.0,62\.5$/, 'no padding in the CSV');
    assert.match(csvHeader([99.9], 'bindTime'), /,Errors\/second,bind time %$/);
    assert.match(csvRow(ROW, 'bindTime'), /,0\.0,62\.5$/);
  });

  test('searchrate adds OpenDJ\'s "Entries/Srch" the same way, and --json the entries returned', () => {
    const lines = [...tableHeader([99.9, 99.99, 99.999], 'entriesPerSearch'), tableRow(ROW, 'entriesPerSearch')];
    assert.ok(lines.every((line) => line.length === lines[0]!.length), lines.join('\n'));
    assert.match(lines[3]!, /\| {2}err\/sec Entries\/Srch \|$/);
    assert.match(lines[5]!, /\| +0\.0 +1\.3 \|$/);
    assert.match(csvHeader([99.9], 'entriesPerSearch'), /,Errors\/second,Entries\/Srch$/);
    const stats = new Stats(0);
    stats.record(1, 0, 0, 1);
    stats.record(1, 0, 0, 0);
    assert.equal(stats.row([99.9], 1000).entriesPerSearch, 0.5);
    const summary = JSON.parse(jsonSummary(stats.summary(1000), 'entriesPerSearch')) as Record<string, unknown>;
    assert.deepEqual([summary['entries'], summary['entries_per_search'], summary['errors']], [1, 0.5, 0]);
    assert.equal(JSON.parse(jsonSummary(stats.summary(1000)))['entries'], undefined, 'not in authrate\'s');
  });

  test('bind time % is the interval\'s response time less its searches', () => {
    const stats = new Stats(0);
    stats.record(4, 0, 1);
    stats.record(6, 0, 3);
    assert.equal(stats.row([99.9], 1000).bindTimePercent, 60);
  });

  test('-S: the CSV header and rows', () => {
    assert.equal(csvHeader([99.9, 99.99]), 'Time (seconds),Recent throughput (ops/second),Average throughput (ops/second),'
      + 'Recent response time (milliseconds),Average response time (milliseconds),99.9% response time (milliseconds),'
      + '99.99% response time (milliseconds),Errors/second');
    assert.equal(csvRow(ROW), '5.0,20306.0,20306.0,0.469,0.469,11.40,38.01,55.05,0.0');
  });

  test('--json: the keys, from real stats', () => {
    const stats = new Stats(0);
    stats.record(1, 0);
    stats.record(2, 49);
    stats.record(3, 91);
    const summary = JSON.parse(jsonSummary(stats.summary(1000))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(summary), ['throughput', 'operations', 'errors', 'errors_by_code', 'p50_ms', 'p99_ms', 'p999_ms', 'p9999_ms', 'p99999_ms', 'max_ms']);
    assert.equal(summary['throughput'], 3);
    assert.equal(summary['operations'], 3);
    assert.equal(summary['errors'], 2);
    assert.deepEqual(summary['errors_by_code'], { 49: 1, 91: 1 });
    assert.ok(Math.abs((summary['max_ms'] as number) - 3) < 0.01);
  });

  test('stats: recent columns are per interval, averages since the start', () => {
    const stats = new Stats(0);
    stats.record(1, 0);
    stats.record(3, 0);
    const first = stats.row([50], 1000);
    assert.equal(first.recentThroughput, 2);
    assert.equal(first.recentResponseMs, 2);
    stats.record(5, 49);
    const second = stats.row([100], 2000);
    assert.equal(second.recentThroughput, 1);
    assert.equal(second.averageThroughput, 1.5);
    assert.equal(second.recentResponseMs, 5);
    assert.equal(second.averageResponseMs, 3);
    assert.equal(second.errorsPerSecond, 1);
    assert.ok(Math.abs(second.percentilesMs[0]! - 5) < 0.01, 'percentiles are cumulative');
  });
});
