/**
 * Synced modifies, leveldap against OpenLDAP slapd, side by side in one run (issue 18's modrate
 * case): the same USERS-user make-ldif LDIF in both (bench/side-by-side.ts); slapd (16 threads up
 * to 4 cores, loglevel 0, back_mdb with its default durability: every write transaction is
 * flushed to disk before slapd answers, no `dbnosync`) indexed as leveldap is by default; leveldap as `serve` runs by default (every
 * acknowledged write synced). The load is modrate's engine (src/authrate/modrate.ts) in this
 * process: C connections bound as each server's admin, one modify outstanding on each, replacing
 * the description of a random user (`-b uid=user.%s,ou=People,... -g rand(0,USERS-1) -M
 * description:randstr(16)`): distinct entries, as 32 writers among 10,000 users rarely meet.
 *
 * ROUNDS rounds of SECONDS (after 2 s of warm-up) for each C, each starting one server later (rotation.ts), the best kept. Reports
 * modifies/s, p50 and p99 latency, and the server's CPU per modify (µs, all its threads, /proc).
 * Run: npm run build && node dist/bench/bench-modify.js  (USERS=10000 SECONDS=10 ROUNDS=2
 * CONNECTIONS=1,16,32; SERVE_ARGS="--threads 1" for more serve flags; BUILDS: a comma-separated list
 * of other built checkouts, whose leveldap runs beside this one's)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe, startLoad } from '../src/authrate/engine.js';
import { MODRATE, parseModrateOptions } from '../src/authrate/modrate.js';
import { makeLdifFile } from '../src/bench-schemes/servers.js';
import { startSideBySide, type Served } from './side-by-side.js';
import { cpuSeconds } from '../src/harness/process-stats.js';
import { rotated } from './rotation.js';

const USERS = Number(process.env.USERS ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const CONNECTIONS = (process.env.CONNECTIONS ?? '1,16,32').split(',').map(Number);
const SERVE_ARGS = (process.env.SERVE_ARGS ?? '').split(' ').filter(Boolean);
const BUILDS = process.env.BUILDS ? process.env.BUILDS.split(',') : [];
const WARM_UP_SECONDS = 2;
const SUFFIX = 'dc=example,dc=com';

interface Measured {
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  /** Server CPU µs per modify over the whole run (warm-up included, as the engine counts only after it). */
  readonly cpuPerModify: number;
}

async function modifyRun(served: Served, connections: number): Promise<Measured> {
  const config = parseModrateOptions([
    '-h', '127.0.0.1', '-p', String(served.server.port), '-c', String(connections), '-f', '-B', String(WARM_UP_SECONDS), '-d', String(SECONDS),
    '-D', served.bindDn, '-w', served.password, '-b', `uid=user.%s,ou=People,${SUFFIX}`, '-g', `rand(0,${USERS - 1})`,
    '-M', 'description:randstr(16)',
  ]);
  await probe(config);
  const cpuBefore = cpuSeconds(served.server.pid);
  const startedAt = performance.now();
  const { summary } = await startLoad(config, MODRATE.workload(config)).done;
  const cpu = cpuSeconds(served.server.pid) - cpuBefore;
  const elapsed = (performance.now() - startedAt) / 1000;
  // The engine counts SECONDS after the warm-up; the CPU covers both, so it is spread over the
  // modifies of the whole run at the counted rate.
  const modifies = summary.throughput * elapsed;
  return { throughput: summary.throughput, p50Ms: summary.p50Ms, p99Ms: summary.p99Ms, errors: summary.errors, cpuPerModify: modifies > 0 ? (cpu / modifies) * 1e6 : Number.NaN };
}

function row(connections: number, label: string, r: Measured): string {
  return `| ${connections} | ${label} | ${Math.round(r.throughput)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.cpuPerModify.toFixed(0)} | ${r.errors} |`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-modify-'));
  const ldif = join(dir, 'users.ldif');
  const served: Served[] = [];
  try {
    process.stderr.write(`generating ${USERS} users...\n`);
    await makeLdifFile(ldif, ['--users', String(USERS), '--scheme', 'SSHA512', '--seed', 'bench', '--base-dn', SUFFIX]);
    served.push(...await startSideBySide(ldif, dir, SERVE_ARGS, BUILDS));
    const lines = ['| connections | server | modifies/s | p50 ms | p99 ms | server CPU µs per modify | errors |', '|---:|---|---:|---:|---:|---:|---:|'];
    for (const connections of CONNECTIONS) {
      const best = new Map<string, Measured>();
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const server of rotated(served, round - 1)) {
          process.stderr.write(`${connections} connections: round ${round}, ${server.label}...\n`);
          const result = await modifyRun(server, connections);
          const previous = best.get(server.label);
          if (!previous || result.throughput > previous.throughput) best.set(server.label, result);
        }
      }
      for (const server of served) lines.push(row(connections, server.label, best.get(server.label)!));
      for (const server of served.slice(1)) {
        const ratio = best.get(server.label)!.throughput / best.get('slapd')!.throughput;
        lines.push(`| ${connections} | **${server.label} / slapd** | **${ratio.toFixed(2)}x** | | | | |`);
      }
    }
    process.stdout.write(`\n${USERS} users, ${SECONDS} s per run, best of ${ROUNDS} alternating runs, Node ${process.version}\n\n${lines.join('\n')}\n`);
  } finally {
    await Promise.all(served.map((entry) => entry.server.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
