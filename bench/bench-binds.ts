/**
 * Bind throughput, leveldap against OpenLDAP slapd, side by side in one run: the same
 * 10,000-user LDIF (pre-hashed {SSHA512}, then {PBKDF2-SHA256} at 10,000 iterations), the same
 * client (bench/bind-load.ts: 32 connections, one bind outstanding on each, random users),
 * alternating runs. Reports binds/s, latency percentiles, binds per CPU-second of each server,
 * resident memory at the end of the run and the most seen during it (every 500 ms), and the ratio; each round starts one
 * server later in the rotation than the one before. Logging is off on both servers
 * (slapd `loglevel 0`, 16 threads; leveldap --log-level warn). Runs before 2026-12-01 15:00 left slapd at its default loglevel
 * (stats: a syslog line per operation), which halved its bind rate: their ratios are recorded as such in docs/performance.md.
 * Run: npm run build && node dist/bench/bench-binds.js     (USERS, SECONDS, CONNECTIONS, ROUNDS, SCHEMES,
 * THREADS: a list such as 1,2 runs one leveldap per value with serve --threads N, side by side;
 * unset: one leveldap with serve's default; BUILDS: a comma-separated list of other checkouts, each
 * built, whose leveldap runs beside this one's with the same settings, to compare builds;
 * VARIANTS: a ';'-separated list of extra serve arguments, each run as one more leveldap of this
 * build beside the others, e.g. VARIANTS='--metrics-port 0' to measure what serving /metrics costs;
 * FRESH=1: each leveldap is stopped and started again on its database before each of its runs, so
 * that one process's luck (two instances of one build, best of 8 runs each, differed by 11% on
 * 2026-12-02) does not decide a comparison; the median of the runs is reported beside the best,
 * and each other leveldap's ratio to the first leveldap, round by round: median and range)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBindLoad, type LoadResult } from './bind-load.js';
import { cpuSeconds, residentBytes } from '../src/harness/process-stats.js';
import { median } from '../src/authrate/stats.js';
import { importLeveldap, makeLdifFile, serveLeveldap, startSlapd, type BenchServer } from '../src/bench-schemes/servers.js';

const USERS = Number(process.env.USERS ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SCHEMES = (process.env.SCHEMES ?? 'SSHA512,PBKDF2-SHA256').split(',');
const THREADS = process.env.THREADS ? process.env.THREADS.split(',') : [undefined];
const BUILDS = process.env.BUILDS ? process.env.BUILDS.split(',') : [];
const VARIANTS = process.env.VARIANTS ? process.env.VARIANTS.split(';').map((args) => args.trim().split(/\s+/)) : [];
const FRESH = process.env.FRESH === '1';
const SUFFIX = 'dc=example,dc=com';
/** slapd as a careful operator runs it: its 16 worker threads (Symas' advice up to 4 cores), nothing logged per operation. */
const SLAPD = { threads: 16, logLevel: '0' } as const;

/** A load run, with the server's CPU seconds over it and its resident memory: at the end, and the most seen (every 500 ms). */
type Measured = LoadResult & { cpu: number; rssMb: number; maxRssMb: number };

async function measure(server: BenchServer): Promise<Measured> {
  let cpuAtStart = 0;
  let cpu = 0;
  let maxRss = 0;
  const sample = setInterval(() => { maxRss = Math.max(maxRss, residentBytes(server.pid)); }, 500);
  const onCounting = (counting: boolean) => {
    if (counting) cpuAtStart = cpuSeconds(server.pid);
    else cpu = cpuSeconds(server.pid) - cpuAtStart;
  };
  try {
    const result = await runBindLoad({
      host: '127.0.0.1', port: server.port, users: USERS, password: Buffer.from('password'),
      dn: (n) => `uid=user.${n},ou=People,${SUFFIX}`,
    }, { connections: CONNECTIONS, seconds: SECONDS, warmUpSeconds: 2, onCounting });
    const rss = residentBytes(server.pid);
    return { ...result, cpu, rssMb: rss / 2 ** 20, maxRssMb: Math.max(maxRss, rss) / 2 ** 20 };
  } finally {
    clearInterval(sample);
  }
}

/** A server of the comparison; `restart` serves its database again (a new process), for FRESH. */
interface Contender {
  readonly label: string;
  server: BenchServer;
  readonly restart?: () => Promise<BenchServer>;
}

/** A leveldap of `bin` on a new database in `dir`, imported from the LDIF file once. */
async function leveldapContender(label: string, ldif: string, dir: string, serveArgs: readonly string[], bin?: string): Promise<Contender> {
  const data = join(dir, 'db');
  await importLeveldap(ldif, data, [], bin);
  const restart = () => serveLeveldap(data, [], serveArgs, bin);
  return { label, server: await restart(), restart };
}

function row(scheme: string, name: string, r: Measured, medianThroughput: number): string {
  const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
  const perCpu = r.cpu > 0 ? Math.round(r.operations / r.cpu) : 0;
  return `| ${scheme} | ${name} | ${Math.round(r.throughput)} | ${Math.round(medianThroughput)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.p999Ms.toFixed(2)} | ${errors} | ${perCpu} | ${Math.round(r.rssMb)} | ${Math.round(r.maxRssMb)} |`;
}

async function benchScheme(scheme: string): Promise<string[]> {
  process.stderr.write(`${scheme}: generating ${USERS} users...\n`);
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-'));
  const ldif = join(dir, 'users.ldif');
  const servers: Contender[] = [];
  const best = new Map<string, Measured>();
  const rates = new Map<string, number[]>();
  try {
    await makeLdifFile(ldif, ['--users', String(USERS), '--scheme', scheme, '--seed', 'bench', '--base-dn', SUFFIX]);
    servers.push({ label: 'slapd', server: await startSlapd(ldif, SLAPD) });
    for (const threads of THREADS) {
      const serveArgs = threads ? ['--threads', threads] : [];
      const label = threads ? `leveldap --threads ${threads}` : 'leveldap';
      servers.push(await leveldapContender(label, ldif, join(dir, `threads-${threads ?? 'default'}`), serveArgs));
      for (const [index, build] of BUILDS.entries()) {
        const bin = join(build, 'bin', 'leveldap.js');
        servers.push(await leveldapContender(`${label} (${build})`, ldif, join(dir, `build-${index}-${threads ?? 'default'}`), serveArgs, bin));
      }
      for (const [index, extra] of VARIANTS.entries()) {
        servers.push(await leveldapContender(`${label} ${extra.join(' ')}`, ldif, join(dir, `variant-${index}-${threads ?? 'default'}`), [...serveArgs, ...extra]));
      }
    }
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Each round starts one server later in the list: a slot of the rotation (right after slapd,
      // say) is not always the same server's, and a bias of the slot spreads over all of them.
      const shift = (round - 1) % servers.length;
      for (const contender of [...servers.slice(shift), ...servers.slice(0, shift)]) {
        const { label } = contender;
        if (FRESH && round > 1 && contender.restart) {
          await contender.server.stop();
          contender.server = await contender.restart();
        }
        process.stderr.write(`${scheme}: round ${round}, ${label}...\n`);
        const result = await measure(contender.server);
        process.stderr.write(`${scheme}: round ${round}, ${label}: ${Math.round(result.throughput)} binds/s\n`);
        rates.set(label, [...(rates.get(label) ?? []), result.throughput]);
        const previous = best.get(label);
        if (!previous || result.throughput > previous.throughput) best.set(label, result);
      }
    }
  } finally {
    for (const { server } of servers) await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const theirs = best.get('slapd')!;
  const theirMedian = median(rates.get('slapd')!);
  const ours = servers.map(({ label }) => label).filter((label) => label !== 'slapd');
  const ratio = (name: string) => `**${(best.get(name)!.throughput / theirs.throughput).toFixed(2)}x** | ${(median(rates.get(name)!) / theirMedian).toFixed(2)}x`;
  // On a machine whose speed moves between runs, the ratio of two servers measured in the same round is steadier.
  const [first, ...others] = ours;
  const paired = (name: string) => {
    const each = rates.get(name)!.map((rate, round) => rate / rates.get(first!)![round]!);
    return `median ${median(each).toFixed(2)}x | range ${Math.min(...each).toFixed(2)}-${Math.max(...each).toFixed(2)}x`;
  };
  return [
    row(scheme, 'slapd', theirs, theirMedian),
    ...ours.map((name) => row(scheme, name, best.get(name)!, median(rates.get(name)!))),
    ...ours.map((name) => `| ${scheme} | **${name} / slapd** | ${ratio(name)} | | | | | | | |`),
    ...others.map((name) => `| ${scheme} | ${name} / ${first}, the two runs of each round | ${paired(name)} | | | | | | | |`),
  ];
}

const lines = ['| scheme | server | binds/s (best run) | median | p50 ms | p99 ms | p99.9 ms | errors | binds per CPU-second | RSS MB at the end | RSS MB, most seen |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
for (const scheme of SCHEMES) lines.push(...(await benchScheme(scheme)));
await writeFile(join(tmpdir(), 'leveldap-bench-binds.md'), `${lines.join('\n')}\n`);
process.stdout.write(`\n${USERS} users, ${CONNECTIONS} connections, ${SECONDS} s per run, best and median of ${ROUNDS} alternating runs${FRESH ? ', each leveldap started afresh for each run' : ''}, Node ${process.version}\n\n${lines.join('\n')}\n`);
