/**
 * Bind timing must not tell whether a DN exists: the users hold SSHA512 (the test helper imports
 * with --scheme SSHA512) while serve's default scheme stays PBKDF2-SHA256, so a dummy verification
 * in the default scheme made an unknown DN answer measurably later than a wrong password (before
 * the decoys of src/policy/bind-decoys.ts: medians 20% apart here). 500 binds of each kind on one
 * connection, sequential, in blocks A B B A A B B A (a drift in the machine's load hits both kinds
 * alike): the medians differ by less than 10% and the 25th-75th percentile ranges intersect.
 * The server's CPU time per block tells the same without the timing floor in the way: an unknown
 * DN costs the server no more than a wrong password does (before the fix: 3 times more, here).
 * And a decoy is a real account's value: the right password of that account, sent for an unknown
 * DN, still binds nobody, and the verified-bind cache plays no part.
 *
 * Blocks, not single alternation: a failed bind answers no sooner than the slowest recent
 * verification (bind.ts, FailureFloor), so alternating one by one lets the slower kind pad the
 * other and hides what each costs (an attacker too can send a run of binds of known DNs before
 * a probe). The machine is shared with other work: a run whose numbers miss is measured once
 * more, and the second must pass. A difference the code makes is systematic and shows in both
 * runs (as it did before the fix); a burst of load rarely hits the same kind twice.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { RawConnection } from '../helpers/ldap-client.js';
import { bindRequest, exchange } from '../helpers/ldap-requests.js';
import { cpuSeconds } from '../../src/harness/process-stats.js';
import { createRegistry } from '../../src/password/index.js';
import { eventually } from '../helpers/eventually.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const USERS = 200;
const WARM_UP = 50;
type Kind = 'unknown' | 'wrong';
const BLOCK = 125;
const BLOCKS: readonly Kind[] = ['unknown', 'wrong', 'wrong', 'unknown', 'unknown', 'wrong', 'wrong', 'unknown'];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface Spread { readonly p25: number; readonly median: number; readonly p75: number }

function spread(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p25: percentile(sorted, 0.25), median: percentile(sorted, 0.5), p75: percentile(sorted, 0.75) };
}

const show = (s: Spread) => `p25 ${s.p25.toFixed(3)} ms, median ${s.median.toFixed(3)} ms, p75 ${s.p75.toFixed(3)} ms`;

interface Run {
  readonly report: string;
  /** Server CPU seconds spent on the unknown-DN blocks over those spent on the wrong-password blocks. */
  readonly cpuRatio: number;
  readonly medianGap: number;
  readonly overlap: boolean;
}

/** One measurement: every bind answers 49; the spread of each kind's round trips. */
async function measure(port: number, pid: number): Promise<Run> {
  const connection = await RawConnection.open(port);
  let id = 0;
  const timeBind = async (dn: string): Promise<number> => {
    id += 1;
    const started = performance.now();
    const response = await exchange(connection, id, bindRequest(id, dn, 'not-the-password'));
    const millis = performance.now() - started;
    assert.equal(response.code, 49, `${dn}: invalidCredentials`);
    return millis;
  };
  const dnFor = (kind: Kind, i: number) => (kind === 'unknown' ? `uid=nobody.${i},${PEOPLE}` : `uid=user.${i % USERS},${PEOPLE}`);
  const samples: Record<Kind, number[]> = { unknown: [], wrong: [] };
  const cpu: Record<Kind, number> = { unknown: 0, wrong: 0 };
  for (let i = 0; i < WARM_UP; i++) await timeBind(dnFor(i % 2 === 0 ? 'unknown' : 'wrong', i));
  for (const [b, kind] of BLOCKS.entries()) {
    const cpuBefore = cpuSeconds(pid);
    for (let i = 0; i < BLOCK; i++) samples[kind].push(await timeBind(dnFor(kind, b * BLOCK + i)));
    cpu[kind] += cpuSeconds(pid) - cpuBefore;
  }
  connection.socket.destroy();
  const a = spread(samples.unknown);
  const b = spread(samples.wrong);
  const cpuRatio = cpu.unknown / Math.max(cpu.wrong, 0.01);
  return {
    report: `unknown DN: ${show(a)}, server CPU ${cpu.unknown.toFixed(2)} s; wrong password: ${show(b)}, server CPU ${cpu.wrong.toFixed(2)} s`,
    cpuRatio,
    medianGap: Math.abs(a.median - b.median) / Math.min(a.median, b.median),
    overlap: a.p25 <= b.p75 && b.p25 <= a.p75,
  };
}

/**
 * Medians within this share of each other: the defect this guards against showed as 20-24%
 * (docs/password-limits.md), so the bound stays under it; the server CPU ratio the test asserts is the steadier
 * check of the same thing.
 */
const MEDIAN_GAP = 0.10;
/** Measurements tried before the medians must agree: other work on this 2-core machine moved two in a row by 15%. */
const ATTEMPTS = 3;

const passes = (run: Run) => run.medianGap < MEDIAN_GAP && run.overlap;

describe('leveldap serve: an unknown DN and a wrong password take the same time (users on SSHA512, default scheme PBKDF2-SHA256)', () => {
  let server: LeveldapServer;
  before(async () => {
    server = await startLeveldap({ users: USERS, args: ['--threads', '1'] });
  });
  after(async () => { await server?.stop(); });

  test('500 binds to unknown DNs and 500 wrong passwords, in blocks A B B A A B B A: medians within 10%, quartile ranges overlap', async () => {
    const pid = server.process.pid!;
    const first = await measure(server.port, pid);
    console.log(first.report);
    // The server's CPU is not the machine's wall clock: other work does not move it much, so no second chance.
    assert.ok(first.cpuRatio < 1.5, `an unknown DN costs the server ${first.cpuRatio.toFixed(1)} times what a wrong password costs: ${first.report}`);
    const runs = [first];
    while (!passes(runs.at(-1)!) && runs.length < ATTEMPTS) {
      runs.push(await measure(server.port, pid));
      console.log(`measured again: ${runs.at(-1)!.report}`);
    }
    const run = runs.at(-1)!;
    const history = runs.map((each, n) => `run ${n + 1}: ${each.report}`).join('; ');
    assert.ok(run.medianGap < MEDIAN_GAP, `medians differ by ${(run.medianGap * 100).toFixed(1)}%: ${history}`);
    assert.ok(run.overlap, `the 25th-75th percentile ranges do not intersect: ${history}`);
  });
});

describe('leveldap serve: a decoy that matches binds nobody (one account, PBKDF2, --bind-cache-ttl 60)', () => {
  let server: LeveldapServer;
  before(async () => {
    const hash = await createRegistry().encode('PBKDF2-SHA256', Buffer.from('only-secret'), { iterations: 1000 });
    const ldif = `dn: uid=only,${PEOPLE}\nobjectClass: inetOrgPerson\nuid: only\ncn: Only\nsn: Only\nuserPassword: ${hash}\n`;
    server = await startLeveldap({ users: 0, ldif, args: ['--threads', '1', '--bind-cache-ttl', '60', '--log-level', 'debug'] });
  });
  after(async () => { await server?.stop(); });

  test('the only account\'s password, sent for unknown DNs before and after that account bound: 49 every time, no cache hit', async () => {
    const connection = await RawConnection.open(server.port);
    const bind = async (id: number, dn: string) => (await exchange(connection, id, bindRequest(id, dn, 'only-secret'))).code;
    assert.equal(await bind(1, `uid=nobody,${PEOPLE}`), 49, 'the decoy (uid=only\'s value) matches, and binds nobody');
    assert.equal(await bind(2, `uid=only,${PEOPLE}`), 0);
    assert.equal(await bind(3, `uid=only,${PEOPLE}`), 0, 'a cache hit');
    for (let id = 4; id < 10; id++) assert.equal(await bind(id, `uid=nobody,${PEOPLE}`), 49);
    assert.equal(await bind(10, `uid=only,${PEOPLE}`), 0);
    connection.socket.destroy();
    // The log is written asynchronously: wait for the two hits expected, then look at every one.
    const cacheHits = () => server.logs().filter((line) => line.includes('verified-bind cache hit'));
    await eventually(() => cacheHits().length >= 2, 5000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const hits = cacheHits();
    assert.equal(hits.length, 2, 'the second and last binds of uid=only only');
    assert.ok(hits.every((line) => line.includes('uid=only')), hits.join('\n'));
  });
});
