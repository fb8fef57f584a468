/**
 * bench-schemes: for each scheme and its parameters, the same users (make-ldif) are loaded into
 * leveldap and, with --compare-slapd, into slapd; authrate (in this process, -c C -f, random
 * users) runs against each for D seconds after a warm-up. Also measured: µs per verify on one
 * core (and the CPU time it takes, which is more when the hash runs lanes in parallel), the
 * verifications per second of every core hashing at once in this process with no server (what
 * the machine itself reaches: memory-hard hashes share the caches and the memory bus, so it can
 * fall short of cores x 1/verify time), each server's CPU seconds, and its resident memory at
 * the end and the most seen (every 500 ms).
 *
 * "Every core at once" keeps IN_FLIGHT_PER_CORE verifications per core in flight through the
 * registry, as a loaded server's queue does: with one per core, each core waited between two
 * hashes for this thread to start the next while the other core hashed (PBKDF2-SHA256 10,000:
 * 1,053/s against 1,473 with 4 per core, 2026-12-03); the registry's memory budget still runs
 * only as many memory-hard ones at once as a server would.
 *
 * A costly case is made with fewer users than --users: as many as the cores can hash in the
 * hash budget (never fewer than the connections), so that making the LDIF of a 64 MiB Argon2id
 * or a bcrypt-12 case does not take minutes. Every user still has a hash of its own, and with
 * the bind cache off (slapd has none) every bind verifies in full, so the count changes nothing
 * a cold bind costs; the table shows it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRegistry, loadSchemePlugins } from '../password/index.js';
import { parseAuthrateOptions, startAuthrate } from '../authrate/authrate.js';
import { probe } from '../authrate/engine.js';
import type { StatsSummary } from '../authrate/stats.js';
import { cpuSeconds, residentBytes } from '../harness/process-stats.js';
import { makeLdifFile, SLAPD_MODULES, slapdSettings, slapdVerifies, startLeveldap, startSlapd, type BenchServer } from './servers.js';
import { timeConcurrently, timeOperation } from './timing.js';

/** Scheme parameters as `leveldap schemes` lists them (iterations, memory, time, parallelism, cost, rounds...). */
export type CaseParams = Readonly<Record<string, number>>;

export interface SchemeCase {
  readonly scheme: string;
  /** The parameters written with (make-ldif --param); none given: the scheme's defaults. */
  readonly params?: CaseParams;
  /** leveldap serve --bind-cache-ttl; such a case runs on leveldap only (slapd has no such cache). */
  readonly bindCacheTtl?: number;
  /** Users to make and bind as, instead of the budgeted count (a few, for returning users). */
  readonly users?: number;
}

interface BenchOptions {
  readonly cases: readonly SchemeCase[];
  /** Users per case at most. */
  readonly users: number;
  /** Seconds of all cores that making one case's users may take (fewer users for costly cases). */
  readonly hashBudgetSeconds: number;
  readonly seconds: number;
  readonly warmUpSeconds: number;
  readonly connections: number;
  /** Times each server is measured (alternating which goes first); 1 by default. */
  readonly rounds?: number;
  readonly compareSlapd: boolean;
  readonly plugins: readonly string[];
  /** The cores the hashing limit counts (os.availableParallelism() by default). */
  readonly cores?: number;
  /** Told what is about to happen, for progress. */
  readonly onStage?: (stage: string) => void;
}

export interface ServerResult {
  readonly server: BenchServer['name'];
  readonly summary: StatsSummary;
  readonly cpuSeconds: number;
  /** At the end of the run. */
  readonly residentBytes: number;
  /** The most seen during the run, warm-up included (sampled every 500 ms). */
  readonly peakResidentBytes: number;
}

export interface CaseResult extends SchemeCase {
  /** The users made and bound as. */
  readonly users: number;
  /** Wall-clock µs per verify, one at a time. */
  readonly verifyMicros: number;
  /** CPU µs per verify, one at a time (all the process's threads): above verifyMicros when one verification uses several cores. */
  readonly verifyCpuMicros?: number;
  /** The machine's hashing limit, verifications per second: cores x 1e6 / verifyMicros. */
  readonly hashingLimit: number;
  /** Verifications per second with every core hashing (IN_FLIGHT_PER_CORE per core in flight), in the bench's process, no server. */
  readonly allCoresRate: number;
  /** Each server's median round (by binds/s). */
  readonly servers: readonly ServerResult[];
  /** leveldap's binds/s over slapd's, round by round (none when slapd did not run). */
  readonly roundRatios: readonly number[];
}

const PASSWORD = 'password';
const BASE_DN = 'dc=example,dc=com';
const NAME = /^[A-Za-z][A-Za-z0-9]*$/;
const WHOLE = /^[0-9]{1,15}$/;

/**
 * A case: "SSHA512"; "PBKDF2-SHA256:10000" (iterations, as before); or
 * "ARGON2:memory=65536,time=3,parallelism=4" (any parameter `leveldap schemes` lists, whole numbers).
 * The registry checks the names and ranges (the CLI does, before the run).
 */
export function parseCase(text: string): SchemeCase {
  const [scheme, given, extra] = text.split(':');
  if (!scheme || extra !== undefined) throw new Error(`"${text}" is not SCHEME, SCHEME:ITERATIONS or SCHEME:NAME=VALUE,...`);
  if (given === undefined) return { scheme };
  if (!given.includes('=')) {
    const iterations = Number(given);
    if (!WHOLE.test(given) || iterations < 1) throw new Error(`"${text}": the iterations must be a positive integer`);
    return { scheme, params: { iterations } };
  }
  const params: Record<string, number> = {};
  for (const pair of given.split(',')) {
    const [name, value, more] = pair.split('=');
    if (!name || !NAME.test(name) || value === undefined || !WHOLE.test(value) || more !== undefined) {
      throw new Error(`"${text}": a parameter is NAME=VALUE with a whole number, e.g. memory=65536, not "${pair}"`);
    }
    if (name in params) throw new Error(`"${text}": ${name} is given twice`);
    params[name] = Number(value);
  }
  return { scheme, params };
}

/** "memory=19456 time=2 parallelism=1", in the order given; "" for none. */
export const formatParams = (params: CaseParams | undefined): string =>
  Object.entries(params ?? {}).map(([name, value]) => `${name}=${value}`).join(' ');

/** make-ldif's and encode-password's form: ["--param", "memory=19456,time=2"], or nothing. */
function paramArgs(params: CaseParams | undefined): string[] {
  const text = Object.entries(params ?? {}).map(([name, value]) => `${name}=${value}`).join(',');
  return text ? ['--param', text] : [];
}

export function caseLabel(item: SchemeCase): string {
  const params = formatParams(item.params);
  return `{${item.scheme}}${params ? ` ${params}` : ''}${item.bindCacheTtl ? `, bind cache ${item.bindCacheTtl} s` : ''}`;
}

/** Does the case run on slapd too? Only what slapd verifies, and never with leveldap's bind cache. */
export const runsOnSlapd = (item: SchemeCase, compareSlapd: boolean): boolean =>
  compareSlapd && !item.bindCacheTtl && slapdVerifies(item.scheme);

/**
 * Users to make for a case: its own count, or as many as the cores hash in the budget (each takes
 * about a verification's time, wall or CPU, whichever is more), between the connections and --users.
 */
export function budgetedUsers(item: SchemeCase, options: Pick<BenchOptions, 'users' | 'connections' | 'hashBudgetSeconds'>,
  cores: number, micros: number, cpuMicros = 0): number {
  if (item.users !== undefined) return item.users;
  const perUser = Math.max(micros, cpuMicros, 1e-3);
  const affordable = Math.floor((options.hashBudgetSeconds * cores * 1e6) / perUser);
  return Math.min(options.users, Math.max(options.connections, affordable));
}

/** Verifications in flight per core when every core hashes at once (see the header). */
const IN_FLIGHT_PER_CORE = 4;

/** At least a second and 8 verifications: a shorter measurement of a 25 ms hash moved by 20% from run to run here. */
const VERIFY_TIMING = { minMillis: 1000, minOperations: 8 };

interface VerifyTimings {
  /** µs per verify one at a time, wall and CPU. */
  readonly wall: number;
  readonly cpu: number;
  /** Verifications per second with every core hashing. */
  readonly allCores: number;
}

/** Verify timings with a value made with the case's parameters: one at a time, then on every core at once. */
async function verifyTimings(item: SchemeCase, plugins: readonly string[], cores: number): Promise<VerifyTimings> {
  const registry = createRegistry();
  await loadSchemePlugins(registry, plugins);
  const password = Buffer.from(PASSWORD);
  const stored = await registry.encode(item.scheme, password, item.params ?? {});
  const verify = () => registry.verify(password, stored);
  const alone = await timeOperation(verify, VERIFY_TIMING);
  const together = await timeConcurrently(verify, IN_FLIGHT_PER_CORE * cores, VERIFY_TIMING);
  return { wall: alone.microsPerOp, cpu: alone.cpuMicrosPerOp, allCores: together.opsPerSecond };
}

async function measure(server: BenchServer, users: number, options: BenchOptions): Promise<ServerResult> {
  const config = parseAuthrateOptions(['-h', '127.0.0.1', '-p', String(server.port), '-D', `uid=user.{},ou=People,${BASE_DN}`,
    '-w', PASSWORD, '-g', `rand(0,${users})`, '-c', String(options.connections), '-f',
    '-d', String(options.seconds), '-B', String(options.warmUpSeconds), '--json']);
  let peak = residentBytes(server.pid);
  const sample = setInterval(() => (peak = Math.max(peak, residentBytes(server.pid))), 500);
  try {
    await probe(config);
    let cpuAtStart = 0;
    const { summary } = await startAuthrate(config, { started: () => (cpuAtStart = cpuSeconds(server.pid)) }).done;
    const resident = residentBytes(server.pid);
    return { server: server.name, summary, cpuSeconds: cpuSeconds(server.pid) - cpuAtStart, residentBytes: resident, peakResidentBytes: Math.max(peak, resident) };
  } finally {
    clearInterval(sample);
  }
}

async function measureOn(start: () => Promise<BenchServer>, users: number, options: BenchOptions): Promise<ServerResult> {
  const server = await start();
  try {
    return await measure(server, users, options);
  } finally {
    await server.stop();
  }
}

/** The round whose binds/s are the median (the lower of the two middle ones for an even count). */
export function medianRound(rounds: readonly ServerResult[]): ServerResult {
  const sorted = [...rounds].sort((a, b) => a.summary.throughput - b.summary.throughput);
  return sorted[(sorted.length - 1) >> 1]!;
}

/** Which server goes first alternates from round to round. */
export const roundOrder = (round: number, withSlapd: boolean): readonly BenchServer['name'][] =>
  !withSlapd ? ['leveldap'] : round % 2 === 0 ? ['slapd', 'leveldap'] : ['leveldap', 'slapd'];

const coresOf = (options: BenchOptions): number => options.cores ?? availableParallelism();

async function runRounds(item: SchemeCase, ldif: string, users: number, options: BenchOptions, dir: string, stage: (text: string) => void) {
  const cores = coresOf(options);
  const rounds = options.rounds ?? 1;
  const serveArgs = item.bindCacheTtl ? ['--bind-cache-ttl', String(item.bindCacheTtl)] : [];
  const starts = {
    slapd: () => startSlapd(ldif, { modules: SLAPD_MODULES, ...slapdSettings(cores) }),
    leveldap: (round: number) => startLeveldap(ldif, join(dir, `leveldap-${round}`), options.plugins, serveArgs),
  };
  const measured: Record<BenchServer['name'], ServerResult[]> = { slapd: [], leveldap: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const name of roundOrder(round, runsOnSlapd(item, options.compareSlapd))) {
      stage(`authrate against ${name}${rounds > 1 ? `, round ${round + 1} of ${rounds}` : ''}`);
      measured[name].push(await measureOn(() => starts[name](round), users, options));
    }
  }
  return measured;
}

async function runCase(item: SchemeCase, options: BenchOptions, dir: string): Promise<CaseResult> {
  const label = caseLabel(item);
  const stage = (text: string) => options.onStage?.(`${label}: ${text}`);
  const cores = coresOf(options);
  stage('µs per verify, alone and on every core');
  const micros = await verifyTimings(item, options.plugins, cores);
  const users = budgetedUsers(item, options, cores, micros.wall, micros.cpu);
  stage(`make-ldif, ${users} users`);
  const ldif = join(dir, 'users.ldif');
  const plugins = options.plugins.flatMap((file) => ['--scheme-plugin', file]);
  await makeLdifFile(ldif, ['--users', String(users), '--scheme', item.scheme, '--seed', 'bench-schemes', '--base-dn', BASE_DN,
    ...paramArgs(item.params), ...plugins]);
  const { slapd, leveldap } = await runRounds(item, ldif, users, options, dir, stage);
  const servers = [...(slapd.length ? [medianRound(slapd)] : []), medianRound(leveldap)];
  const roundRatios = slapd.map((theirs, round) => leveldap[round]!.summary.throughput / theirs.summary.throughput);
  return { ...item, users, verifyMicros: micros.wall, verifyCpuMicros: micros.cpu, hashingLimit: (cores * 1e6) / micros.wall,
    allCoresRate: micros.allCores, servers, roundRatios };
}

export async function runSchemeBench(options: BenchOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const item of options.cases) {
    const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-schemes-'));
    try {
      results.push(await runCase(item, options, dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return results;
}
