/**
 * bench-schemes: for each scheme and cost, the same users (make-ldif) are loaded into leveldap
 * and, with --compare-slapd, into slapd; authrate (in this process, -c C -f, random users)
 * runs against each for D seconds after a warm-up. Also measured: µs per verify on one core,
 * and each server's CPU seconds and resident memory over the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRegistry, loadSchemePlugins } from '../password/index.js';
import { parseAuthrateOptions } from '../authrate/options.js';
import { probe, startAuthrate } from '../authrate/engine.js';
import type { StatsSummary } from '../authrate/stats.js';
import { cpuSeconds, residentBytes } from '../harness/process-stats.js';
import { makeLdifFile, slapdVerifies, startLeveldap, startSlapd, type BenchServer } from './servers.js';
import { timeOperation } from './timing.js';

export interface SchemeCase {
  readonly scheme: string;
  /** PBKDF2 iterations; undefined: the scheme has no cost setting (or its default). */
  readonly iterations?: number;
}

interface BenchOptions {
  readonly cases: readonly SchemeCase[];
  readonly users: number;
  readonly seconds: number;
  readonly warmUpSeconds: number;
  readonly connections: number;
  readonly compareSlapd: boolean;
  readonly plugins: readonly string[];
  /** Told what is about to happen, for progress. */
  readonly onStage?: (stage: string) => void;
}

export interface ServerResult {
  readonly server: BenchServer['name'];
  readonly summary: StatsSummary;
  readonly cpuSeconds: number;
  readonly residentBytes: number;
}

export interface CaseResult extends SchemeCase {
  readonly verifyMicros: number;
  readonly servers: readonly ServerResult[];
}

const PASSWORD = 'password';
const BASE_DN = 'dc=example,dc=com';

/** "SSHA512" or "PBKDF2-SHA256:10000" into a case. */
export function parseCase(text: string): SchemeCase {
  const [scheme, cost, extra] = text.split(':');
  if (!scheme || extra !== undefined) throw new Error(`"${text}" is not SCHEME or SCHEME:ITERATIONS`);
  if (cost === undefined) return { scheme };
  const iterations = Number(cost);
  if (!Number.isInteger(iterations) || iterations < 1) throw new Error(`"${text}": the iterations must be a positive integer`);
  return { scheme, iterations };
}

const caseLabel = (item: SchemeCase): string => `{${item.scheme}}${item.iterations ? ` ${item.iterations}` : ''}`;

/** µs per verify on one core, with a value made at the case's cost. */
async function verifyMicros(item: SchemeCase, plugins: readonly string[]): Promise<number> {
  const registry = createRegistry();
  await loadSchemePlugins(registry, plugins);
  const password = Buffer.from(PASSWORD);
  const stored = await registry.encode(item.scheme, password, item.iterations ? { iterations: item.iterations } : {});
  const timing = await timeOperation(() => registry.verify(password, stored), { minMillis: 500, minOperations: 5 });
  return timing.microsPerOp;
}

async function measure(server: BenchServer, options: BenchOptions): Promise<ServerResult> {
  const config = parseAuthrateOptions(['-h', '127.0.0.1', '-p', String(server.port), '-D', `uid=user.{},ou=People,${BASE_DN}`,
    '-w', PASSWORD, '-g', `rand(0,${options.users})`, '-c', String(options.connections), '-f',
    '-d', String(options.seconds), '-B', String(options.warmUpSeconds), '--json']);
  await probe(config);
  let cpuAtStart = 0;
  const { summary } = await startAuthrate(config, { started: () => (cpuAtStart = cpuSeconds(server.pid)) }).done;
  return { server: server.name, summary, cpuSeconds: cpuSeconds(server.pid) - cpuAtStart, residentBytes: residentBytes(server.pid) };
}

async function measureOn(start: () => Promise<BenchServer>, options: BenchOptions): Promise<ServerResult> {
  const server = await start();
  try {
    return await measure(server, options);
  } finally {
    await server.stop();
  }
}

async function runCase(item: SchemeCase, options: BenchOptions, dir: string): Promise<CaseResult> {
  const label = caseLabel(item);
  const stage = (text: string) => options.onStage?.(`${label}: ${text}`);
  stage('µs per verify');
  const micros = await verifyMicros(item, options.plugins);
  stage(`make-ldif, ${options.users} users`);
  const ldif = join(dir, 'users.ldif');
  const plugins = options.plugins.flatMap((file) => ['--scheme-plugin', file]);
  await makeLdifFile(ldif, ['--users', String(options.users), '--scheme', item.scheme, '--seed', 'bench-schemes', '--base-dn', BASE_DN,
    ...(item.iterations ? ['--iterations', String(item.iterations)] : []), ...plugins]);
  const servers: ServerResult[] = [];
  if (options.compareSlapd && slapdVerifies(item.scheme)) {
    stage('authrate against slapd');
    servers.push(await measureOn(() => startSlapd(ldif), options));
  }
  stage('authrate against leveldap');
  servers.push(await measureOn(() => startLeveldap(ldif, join(dir, 'leveldap'), options.plugins), options));
  return { ...item, verifyMicros: micros, servers };
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
