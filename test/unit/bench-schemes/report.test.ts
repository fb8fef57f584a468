import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCase, type CaseResult, type ServerResult } from '../../../src/bench-schemes/bench.js';
import { markdownTable, svgChart } from '../../../src/bench-schemes/report.js';
import { Stats } from '../../../src/authrate/stats.js';

function server(name: ServerResult['server'], operations: number, ms: number): ServerResult {
  const stats = new Stats(0);
  for (let i = 0; i < operations; i += 1) stats.record(ms, 0);
  return { server: name, summary: stats.summary(1000), cpuSeconds: operations / 2000, residentBytes: 50 * 2 ** 20 };
}

const RESULTS: CaseResult[] = [
  { scheme: 'SSHA512', verifyMicros: 3.21, servers: [server('slapd', 1000, 2), server('leveldap', 2500, 1)] },
  { scheme: 'PBKDF2-SHA256', iterations: 10000, verifyMicros: 4100, servers: [server('leveldap', 400, 9)] },
];

test('bench-schemes cases: SCHEME or SCHEME:ITERATIONS', () => {
  assert.deepEqual(parseCase('SSHA'), { scheme: 'SSHA' });
  assert.deepEqual(parseCase('PBKDF2-SHA256:100000'), { scheme: 'PBKDF2-SHA256', iterations: 100000 });
  for (const bad of ['', 'PBKDF2:0', 'PBKDF2:x', 'PBKDF2:1:2']) assert.throws(() => parseCase(bad), Error, bad);
});

test('the Markdown table: one row per server and case, the ratio on leveldap rows next to slapd', () => {
  const lines = markdownTable(RESULTS).trim().split('\n');
  assert.equal(lines.length, 5);
  assert.equal(lines[2], '| {SSHA512} | - | 3.2 | slapd | 1,000 |  | 2.00 | 2.00 | 2.00 | 0 | 2,000 | 50 |');
  assert.equal(lines[3], '| {SSHA512} | - | 3.2 | leveldap | 2,500 | 2.50x | 1.00 | 1.00 | 1.00 | 0 | 2,000 | 50 |');
  // percentiles come from the HDR histogram (3 significant digits): 9 ms reads back as 9.01
  assert.equal(lines[4], '| {PBKDF2-SHA256} | 10,000 | 4100.0 | leveldap | 400 |  | 9.00 | 9.01 | 9.01 | 0 | 2,000 | 50 |');
});

test('the SVG: a bar per server in both panels, bar heights in proportion', () => {
  const svg = svgChart(RESULTS, 'caption <&>');
  const bars = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="24" height="([\d.]+)"/g)].map((match) => Number(match[1]));
  assert.equal(bars.length, 6);
  assert.ok(Math.abs(bars[1]! / bars[0]! - 2.5) < 1e-9, 'throughput 2,500 against 1,000');
  assert.ok(svg.includes('caption &lt;&amp;&gt;'));
});
