/**
 * Indexed equality searches, leveldap against OpenLDAP slapd, side by side in one run (issue 18's
 * search case): the same USERS-user make-ldif LDIF (~1 KB inetOrgPerson entries, pre-hashed
 * {SSHA512}) in both (bench/side-by-side.ts); slapd (16 threads up to 4 cores, loglevel 0) indexed
 * as leveldap is by default (objectClass, uid, cn, sn, mail, member, uniqueMember, equality); the
 * same client (bench/search-load.ts: CONNECTIONS connections bound as each server's admin, one search
 * outstanding on each), `(uid=user.N)` for random N, subtree from the suffix, one entry each:
 *
 *   all attributes   no attribute list: every user attribute
 *   no attributes    1.1: the DN only
 *
 * ROUNDS rounds of SECONDS (after WARM_UP s of warm-up, 2 by default), each starting one server later (rotation.ts), the best kept. Reports searches/s,
 * p50, p99 and p99.9 latency, and the server's CPU per search (µs, all its threads, from /proc).
 * Run: npm run build && node dist/bench/bench-search.js  (USERS=10000 SECONDS=10 CONNECTIONS=32
 * ROUNDS=2 WARM_UP=2; CASES=all for some searches only; SERVE_ARGS="--threads 1" for more serve flags;
 * BUILDS: a comma-separated list of other built checkouts, whose leveldap runs beside this one's)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import filters from '@ldapjs/filter';
import { makeLdifFile } from '../src/bench-schemes/servers.js';
import { startSideBySide, type Served } from './side-by-side.js';
import { bestOfRounds, measureSearches, type MeasuredSearches } from './search-load.js';

const USERS = Number(process.env.USERS ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
/** Seconds of searches not counted first (a large directory's equality answers are held once searched: WARM_UP=20 at 100,000 users). */
const WARM_UP = Number(process.env.WARM_UP ?? 2);
const SERVE_ARGS = (process.env.SERVE_ARGS ?? '').split(' ').filter(Boolean);
const BUILDS = process.env.BUILDS ? process.env.BUILDS.split(',') : [];
/** CASES=name,name: only the searches whose names contain one of these. */
const ONLY = (process.env.CASES ?? '').split(',').filter(Boolean);
const SUFFIX = 'dc=example,dc=com';

interface Case {
  readonly name: string;
  readonly attributes: readonly string[];
}

const CASES: readonly Case[] = [
  { name: 'all attributes', attributes: [] },
  { name: 'no attributes (1.1)', attributes: ['1.1'] },
];

/** `(uid=user.N)` for every user, BER-encoded once (the client's cost stays out of the run). */
const FILTERS = Array.from({ length: USERS }, (_, n) => filters.parseString(`(uid=user.${n})`).toBer().buffer as Buffer);

function measure(served: Served, test: Case): Promise<MeasuredSearches> {
  return measureSearches({
    host: '127.0.0.1', port: served.server.port, bindDn: served.bindDn, password: Buffer.from(served.password),
    next: () => ({ base: SUFFIX, scope: 2, deref: 0, filter: FILTERS[Math.floor(Math.random() * USERS)]!, attributes: test.attributes }),
  }, served.server.pid, { connections: CONNECTIONS, seconds: SECONDS, warmUpSeconds: WARM_UP });
}

function row(test: Case, label: string, r: MeasuredSearches): string {
  const errors = Object.entries(r.errors).map(([code, count]) => `${count} x ${code}`).join(', ') || '0';
  const perSearch = r.searches > 0 ? ((r.cpu / r.searches) * 1e6).toFixed(0) : '-';
  return `| ${test.name} | ${label} | ${Math.round(r.throughput)} | ${(r.entries / Math.max(1, r.searches)).toFixed(2)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.p999Ms.toFixed(2)} | ${perSearch} | ${errors} |`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-search-'));
  const ldif = join(dir, 'users.ldif');
  let served: Served[] = [];
  try {
    process.stderr.write(`generating ${USERS} users...\n`);
    await makeLdifFile(ldif, ['--users', String(USERS), '--scheme', 'SSHA512', '--seed', 'bench', '--base-dn', SUFFIX]);
    served = await startSideBySide(ldif, dir, SERVE_ARGS, BUILDS);
    const lines = ['| search | server | searches/s | entries per search | p50 ms | p99 ms | p99.9 ms | server CPU µs per search | errors |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
    for (const test of CASES.filter((candidate) => ONLY.length === 0 || ONLY.some((part) => candidate.name.includes(part)))) {
      const best = await bestOfRounds(served, ROUNDS, (one) => measure(one, test), (text) => process.stderr.write(`${test.name}: ${text}...\n`));
      for (const { label } of served) lines.push(row(test, label, best.get(label)!));
      const theirs = best.get('slapd')!.throughput;
      for (const { label } of served.slice(1)) lines.push(`| ${test.name} | **${label} / slapd** | **${(best.get(label)!.throughput / theirs).toFixed(2)}x** | | | | | | |`);
    }
    process.stdout.write(`\n${USERS} users, ${CONNECTIONS} connections, ${SECONDS} s per run after ${WARM_UP} s of warm-up, best of ${ROUNDS} alternating runs, Node ${process.version}\n\n${lines.join('\n')}\n`);
  } finally {
    for (const { server } of served) await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
