import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetedUsers, caseLabel, formatParams, medianRound, parseCase, roundOrder, runsOnSlapd, type CaseResult, type ServerResult } from '../../../src/bench-schemes/bench.js';
import { markdownTable, svgChart, tableNotes } from '../../../src/bench-schemes/report.js';
import { Stats } from '../../../src/authrate/stats.js';

function server(name: ServerResult['server'], operations: number, ms: number, peakMiB = 50): ServerResult {
  const stats = new Stats(0);
  for (let i = 0; i < operations; i += 1) stats.record(ms, 0);
  return { server: name, summary: stats.summary(1000), cpuSeconds: operations / 2000, residentBytes: 50 * 2 ** 20, peakResidentBytes: peakMiB * 2 ** 20 };
}

const RESULTS: CaseResult[] = [
  { scheme: 'SSHA512', users: 1000, verifyMicros: 3.21, hashingLimit: 623_053, allCoresRate: 500_000, servers: [server('slapd', 1000, 2), server('leveldap', 2500, 1)],
    roundRatios: [2.5] },
  { scheme: 'PBKDF2-SHA256', params: { iterations: 10000 }, users: 1000, verifyMicros: 4100, hashingLimit: 487.8, allCoresRate: 444.4, servers: [server('leveldap', 400, 9)], roundRatios: [] },
];

test('bench-schemes cases: SCHEME or SCHEME:ITERATIONS', () => {
  assert.deepEqual(parseCase('SSHA'), { scheme: 'SSHA' });
  assert.deepEqual(parseCase('PBKDF2-SHA256:100000'), { scheme: 'PBKDF2-SHA256', params: { iterations: 100000 } });
  for (const bad of ['', 'PBKDF2:0', 'PBKDF2:x', 'PBKDF2:1:2']) assert.throws(() => parseCase(bad), Error, bad);
});

test('bench-schemes cases: SCHEME:NAME=VALUE,... with any parameter, in the order given', () => {
  assert.deepEqual(parseCase('ARGON2:memory=65536,time=3,parallelism=4'), { scheme: 'ARGON2', params: { memory: 65536, time: 3, parallelism: 4 } });
  assert.deepEqual(parseCase('CRYPT:rounds=656000'), { scheme: 'CRYPT', params: { rounds: 656000 } });
  assert.deepEqual(parseCase('CRYPT:rounds=0'), { scheme: 'CRYPT', params: { rounds: 0 } }, 'zero is for the scheme to judge (CRYPT: yescrypt)');
  assert.deepEqual(parseCase('PBKDF2-SHA256:iterations=5000'), { scheme: 'PBKDF2-SHA256', params: { iterations: 5000 } });
  const bad = ['ARGON2:', 'ARGON2:memory', 'ARGON2:memory=', 'ARGON2:=5', 'ARGON2:memory=x', 'ARGON2:memory=-1', 'ARGON2:memory=1.5',
    'ARGON2:memory=1=2', 'ARGON2:memory=1,,time=2', 'ARGON2:memory=1,memory=2', 'ARGON2:1memory=1', 'ARGON2:memory=1:time=2'];
  for (const text of bad) assert.throws(() => parseCase(text), Error, text);
  assert.equal(formatParams(parseCase('ARGON2:memory=19456,time=2,parallelism=1').params), 'memory=19456 time=2 parallelism=1');
  assert.equal(formatParams(undefined), '');
  assert.equal(caseLabel({ scheme: 'BCRYPT', params: { cost: 12 } }), '{BCRYPT} cost=12');
  assert.equal(caseLabel({ scheme: 'SSHA512', bindCacheTtl: 600, users: 32 }), '{SSHA512}, bind cache 600 s');
});

test('slapd runs the schemes it verifies (with the argon2 module: {ARGON2}; {CRYPT}), never a bind-cache case', () => {
  for (const scheme of ['SSHA512', 'PBKDF2-SHA256', 'ARGON2', 'CRYPT', 'crypt']) assert.ok(runsOnSlapd({ scheme }, true), scheme);
  for (const scheme of ['BCRYPT', 'CRYPT-YESCRYPT', 'PBKDF2-HMAC-SHA256', 'SSHA3-512']) assert.ok(!runsOnSlapd({ scheme }, true), scheme);
  assert.ok(!runsOnSlapd({ scheme: 'SSHA512' }, false));
  assert.ok(!runsOnSlapd({ scheme: 'ARGON2', bindCacheTtl: 600 }, true));
});

test('users per case: what the cores hash in the budget, between the connections and --users, or the case\'s own', () => {
  const options = { users: 1000, connections: 32, hashBudgetSeconds: 20 };
  assert.equal(budgetedUsers({ scheme: 'SSHA512' }, options, 2, 3.2), 1000);
  assert.equal(budgetedUsers({ scheme: 'BCRYPT' }, options, 2, 250_000), 160, '20 s x 2 cores / 0.25 s');
  assert.equal(budgetedUsers({ scheme: 'ARGON2' }, options, 2, 175_000, 350_000), 114, 'a hash on several cores counts its CPU time');
  assert.equal(budgetedUsers({ scheme: 'BCRYPT' }, options, 2, 5_000_000), 32, 'never fewer than the connections');
  assert.equal(budgetedUsers({ scheme: 'ARGON2', users: 32 }, options, 2, 24_000), 32, 'returning users: the case says');
});

test('the Markdown table: one row per server and case, the ratio on leveldap rows next to slapd', () => {
  const lines = markdownTable(RESULTS).trim().split('\n');
  assert.equal(lines.length, 5);
  assert.equal(lines[0], '| scheme | parameters | µs per verify | server | binds/s | vs slapd | average ms | p99.9 ms | p99.99 ms | errors'
    + ' | binds per CPU-second | RSS MB | RSS MB, most seen | users | hashing limit/s | of limit | all cores, no server/s | of all cores |');
  assert.equal(lines[2], '| {SSHA512} | - | 3.2 | slapd | 1,000 |  | 2.00 | 2.00 | 2.00 | 0 | 2,000 | 50 | 50 | 1,000 | 623,053 | 0.00 | 500,000 | 0.00 |');
  assert.equal(lines[3], '| {SSHA512} | - | 3.2 | leveldap | 2,500 | 2.50x | 1.00 | 1.00 | 1.00 | 0 | 2,000 | 50 | 50 | 1,000 | 623,053 | 0.00 | 500,000 | 0.01 |');
  // percentiles come from the HDR histogram (3 significant digits): 9 ms reads back as 9.01
  assert.equal(lines[4], '| {PBKDF2-SHA256} | iterations=10000 | 4100.0 | leveldap | 400 |  | 9.00 | 9.01 | 9.01 | 0 | 2,000 | 50 | 50 | 1,000 | 488 | 0.82 | 444 | 0.90 |');
});

const ARGON2_64: CaseResult = {
  scheme: 'ARGON2', params: { memory: 65536, time: 3, parallelism: 4 }, users: 114, verifyMicros: 175_000, verifyCpuMicros: 350_000,
  hashingLimit: 11.43, allCoresRate: 6.25, servers: [server('slapd', 5, 3000, 1100), server('leveldap', 5, 3000, 180)], roundRatios: [1],
};
const RETURNING: CaseResult[] = [
  { scheme: 'SSHA512', bindCacheTtl: 600, users: 32, verifyMicros: 3.2, hashingLimit: 625_000, allCoresRate: 500_000, servers: [server('leveldap', 12000, 1)], roundRatios: [] },
  { scheme: 'ARGON2', params: { memory: 19456, time: 2, parallelism: 1 }, bindCacheTtl: 600, users: 32, verifyMicros: 24_000,
    hashingLimit: 83.3, allCoresRate: 80, servers: [server('leveldap', 10800, 1)], roundRatios: [] },
];

test('the table: the most resident memory seen, the bind-cache rows named as such', () => {
  const lines = markdownTable([ARGON2_64, ...RETURNING]).trim().split('\n');
  assert.equal(lines[2], '| {ARGON2} | memory=65536 time=3 parallelism=4 | 175000.0 | slapd | 5 |  | 3000.00 | 3000.32 | 3000.32 | 0 | 2,000 | 50 | 1100 | 114 | 11.4 | 0.44 | 6.3 | 0.80 |');
  assert.match(lines[3]!, /^\| \{ARGON2\} \| memory=65536 time=3 parallelism=4 \| 175000\.0 \| leveldap \| 5 \| 1\.00x \|.* \| 50 \| 180 \| 114 \| 11\.4 \| 0\.44 \| 6\.3 \| 0\.80 \|$/);
  assert.match(lines[4]!, /^\| \{SSHA512\} \| - \| 3\.2 \| leveldap, bind cache 600 s \| 12,000 \| {2}\|.* \| 32 \| 625,000 \| 0\.02 \| 500,000 \| 0\.02 \|$/);
  assert.match(lines[5]!, /^\| \{ARGON2\} \| memory=19456 time=2 parallelism=1 \| 24000\.0 \| leveldap, bind cache 600 s \| 10,800 \| {2}\|.* \| 32 \| 83\.3 \| 129\.65 \| 80\.0 \| 135\.00 \|$/);
});

test('the notes: the CPU-time limit of a hash on several cores, returning users against {SSHA512}', () => {
  const notes = tableNotes([...RESULTS, ARGON2_64, ...RETURNING], 2);
  assert.equal(notes.length, 2, notes.join('\n'));
  assert.match(notes[0]!, /^\{ARGON2\} memory=65536 time=3 parallelism=4: one verification alone took 175,000 µs but 350,000 µs of CPU .* limit is 5\.7\/s, and leveldap's 5\.0 binds\/s are 0\.88 of it\.$/);
  assert.equal(notes[1], 'Returning users (--bind-cache-ttl 600, 32 users binding again and again): {ARGON2} memory=19456 time=2 parallelism=1, bind cache 600 s'
    + ' 10,800 binds/s, 0.90x {SSHA512} measured the same way (12,000).');
  assert.deepEqual(tableNotes(RESULTS, 2), [], 'nothing to say');
});

test('rounds: the first server alternates, each server shows its median round', () => {
  assert.deepEqual([0, 1, 2].map((round) => roundOrder(round, true)), [['slapd', 'leveldap'], ['leveldap', 'slapd'], ['slapd', 'leveldap']]);
  assert.deepEqual(roundOrder(1, false), ['leveldap']);
  const rounds = [server('leveldap', 900, 1), server('leveldap', 1200, 1), server('leveldap', 1000, 1)];
  assert.equal(medianRound(rounds).summary.operations, 1000);
  assert.equal(medianRound(rounds.slice(0, 2)).summary.operations, 900, 'the lower middle of an even count');
});

test('rounds: the ratio is the median of the rounds\' ratios, every one of them in a note', () => {
  const item: CaseResult = { scheme: 'CRYPT', params: { rounds: 5000 }, users: 1000, verifyMicros: 2000, hashingLimit: 1000, allCoresRate: 900,
    servers: [server('slapd', 1000, 30), server('leveldap', 1000, 30)], roundRatios: [0.9, 1.12, 1.05] };
  const lines = markdownTable([item]).trim().split('\n');
  assert.match(lines[3]!, /^\| \{CRYPT\} \| rounds=5000 \| 2000\.0 \| leveldap \| 1,000 \| 1\.05x \|/, 'not the 1.00x of the two median rows');
  assert.deepEqual(tableNotes([item], 2), ['{CRYPT} rounds=5000: leveldap / slapd round by round 0.90x, 1.12x, 1.05x'
    + ' (median 1.05x; the first server alternating; each row is that server\'s median round).']);
  assert.deepEqual(tableNotes([{ ...item, roundRatios: [0.9] }], 2), [], 'one round: the ratio is in the table');
  assert.match(markdownTable([{ ...item, roundRatios: [0.96, 1.0] }]), /\| leveldap \| 1,000 \| 0\.98x \|/, 'the mean of the middle two');
});

test('the SVG: a bar per server in both panels, bar heights in proportion', () => {
  const svg = svgChart(RESULTS, 'caption <&>');
  const bars = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="24" height="([\d.]+)"/g)].map((match) => Number(match[1]));
  assert.equal(bars.length, 6);
  assert.ok(Math.abs(bars[1]! / bars[0]! - 2.5) < 1e-9, 'throughput 2,500 against 1,000');
  assert.ok(svg.includes('caption &lt;&amp;&gt;'));
});

test('the SVG: every parameter on a line of its own under its group, the bind-cache bars in their own colour', () => {
  const svg = svgChart([...RESULTS, ARGON2_64, ...RETURNING], 'caption');
  assert.ok(svg.includes('>{PBKDF2-SHA256}<tspan x="'), 'the iterations under the scheme');
  assert.ok(svg.includes('>10000 iterations</tspan>'));
  for (const line of ['memory=65536', 'time=3', 'parallelism=4', 'bind cache, 32 users']) assert.ok(svg.includes(`>${line}</tspan>`), line);
  assert.equal(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="24" height="[\d.]+" fill="#8cc084"/g)?.length, 4, 'two bind-cache bars a panel');
  assert.ok(svg.includes('>leveldap, bind cache</text>'), 'in the legend');
  const heights = [...svg.matchAll(/<svg [^>]*height="(\d+)"/g)].map((match) => Number(match[1]));
  assert.ok(heights[0]! > 550, 'taller for the three lines of parameters');
});
