/**
 * The PostgreSQL scale-out store (--store postgres://...) against the LevelDB-only server, side by
 * side in one run, measured against the targets of issue 19 ("Targets"); reports ratios.
 *
 * Per scheme (the same USERS-user make-ldif LDIF, pre-hashed {SSHA512}, then {PBKDF2-SHA256}):
 * a throwaway PostgreSQL cluster (src/harness/postgres.ts); two LevelDB-only servers loaded with
 * import-ldif (serve --threads 1 and --threads 2); the PostgreSQL store loaded with
 * `import-ldif --store` (LOAD=import, the default) before node A starts and copies it, or node A
 * started on the empty store and loaded through LDAP adds (LOAD=ldap: LOAD_CONNECTIONS admin
 * connections, bench/ldif-over-ldap.ts); node B started after, which copies the store from a
 * snapshot (the time from spawning it until it listens is reported as its copy time, beside node
 * A's start; B's entry count is checked). Every server logs at warn, nodes serve one thread.
 *
 * 1. Binds per node: node A against the LevelDB-only server, both one thread, the same client
 *    (bench/bind-load.ts: CONNECTIONS connections, one bind outstanding on each, random users):
 *    binds/s ratio and p50 difference in ms.
 * 2. 2 nodes x 1 thread (CONNECTIONS/2 connections on each node, run at once, binds/s summed;
 *    p50/p99 the worse of the two) against one LevelDB-only server x 2 threads (CONNECTIONS).
 *    1 and 2 run as ROUNDS rounds of alternating runs, each round starting one setup later in
 *    the rotation; the best run of each setup is kept (as bench-binds does), all are listed.
 * The rest on the first scheme's store only (writes do not depend on the scheme):
 * 3. A->B visibility: VISIBILITY_SAMPLES modifies of a random user's description through node A,
 *    a value used once each, node B searched for it in a tight loop from the moment the modify
 *    is sent (bench/scale-out-probes.ts); p50/p99 ms, and the modify's response time on A.
 * 4. Modify throughput: the modrate engine (src/authrate: MODIFY_CONNECTIONS connections bound
 *    as the admin, each replacing the description of random users, 2 s warm-up, SECONDS
 *    counted) against node A and against the LevelDB-only server x 1 thread (whose writes are
 *    synced), alternating for ROUNDS rounds, best kept; the ratio. Then node B is stopped and
 *    the same is run again: node A the only node on these cores (node B, following the store,
 *    applies every write A makes, on the same two cores here; on a machine of its own it would not).
 * 5. Read-your-writes wait on node A: its /metrics histogram leveldap_postgres_apply_wait_seconds
 *    over the modify runs on A (read before and after each: their warm-up is in), p50/p99 estimated from the buckets
 *    (the upper bound of the bucket holding it), the exact mean, and the commits and stale
 *    retries over the same runs.
 *
 * Prints the machine (cores, CPU, load average before the run), the tables, the targets met or
 * not, and a final line of JSON. The bench, its clients and every server share the machine:
 * run it on a quiet one.
 * Run: npm run build && node dist/bench/bench-scale-out.js
 * Env: USERS (10000), SECONDS (counted seconds per load run, 10), ROUNDS (2), SCHEMES
 * (SSHA512,PBKDF2-SHA256), CONNECTIONS (bind load, 32), MODIFY_CONNECTIONS (16),
 * LOAD (import: import-ldif --store; ldap: LDAP adds through node A), LOAD_CONNECTIONS (those adds, 8), VISIBILITY_SAMPLES (300).
 * Needs PostgreSQL installed (Debian: apt-get install postgresql) and to run as root (the
 * cluster runs as the postgres user).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import filters from '@ldapjs/filter';
import { LdapConnection } from '../src/authrate/connection.js';
import { probe, startLoad } from '../src/authrate/engine.js';
import { MODRATE, parseModrateOptions } from '../src/authrate/modrate.js';
import { BENCH_ADMIN, LEVELDAP_BIN, makeLdifFile, serveLeveldap, startLeveldap, type BenchServer } from '../src/bench-schemes/servers.js';
import { run } from '../src/harness/run.js';
import { cpuSeconds } from '../src/harness/process-stats.js';
import { postgresBinDir, startPostgres, type PostgresCluster } from '../src/harness/postgres.js';
import { freePort } from '../src/harness/slapd.js';
import { runBindLoad } from './bind-load.js';
import { addLdif, adminConnection, local, type AddLoad } from './ldif-over-ldap.js';
import { combine, visibilitySample, writeMetrics, type WriteMetrics } from './scale-out-probes.js';
import { rotated } from './rotation.js';
import {
  bindTable, bindTargets, json, storeTable, targetTable, writeLines, writeTable, writeTargets,
  LEVELDB_1, LEVELDB_2, NODE, NODE_ALONE, TWO_NODES, type Best, type Machine, type Measured, type SchemeResult, type StoreLoad, type WriteResult,
} from './scale-out-report.js';

const USERS = Number(process.env.USERS ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SCHEMES = (process.env.SCHEMES ?? 'SSHA512,PBKDF2-SHA256').split(',');
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const MODIFY_CONNECTIONS = Number(process.env.MODIFY_CONNECTIONS ?? 16);
const LOAD_CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 8);
const LOAD = process.env.LOAD ?? 'import';
const VISIBILITY_SAMPLES = Number(process.env.VISIBILITY_SAMPLES ?? 300);
const WARM_UP_SECONDS = 2;
const SUFFIX = 'dc=example,dc=com';
const userDn = (n: number): string => `uid=user.${n},ou=People,${SUFFIX}`;
const randomUser = (): number => Math.floor(Math.random() * USERS);

/** The machine, taken before anything starts. */
function machine(): Machine {
  const bin = postgresBinDir();
  return {
    cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', loadAverageBefore: loadavg().map((value) => Number(value.toFixed(2))),
    node: process.version, postgres: bin === undefined ? 'not installed' : execFileSync(join(bin, 'postgres'), ['--version']).toString().trim(),
  };
}

/** ROUNDS rounds of every run in rotation; the best of each label by throughput. */
async function bestOf(runs: readonly { readonly label: string; readonly run: () => Promise<Measured> }[], what: string): Promise<Map<string, Best>> {
  const bests = new Map<string, Best>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const { label, run } of rotated(runs, round)) {
      process.stderr.write(`${what}: round ${round + 1}, ${label}...\n`);
      const result = await run();
      const previous = bests.get(label);
      const all = [...(previous?.runs ?? []), result.throughput];
      bests.set(label, { best: !previous || result.throughput > previous.best.throughput ? result : previous.best, runs: all });
    }
  }
  return bests;
}

/** A bind load of `connections` on one server, with that server's CPU seconds over the counted window. */
async function bindRun(server: BenchServer, connections: number): Promise<Measured> {
  let cpuAtStart = 0;
  let cpu = 0;
  const onCounting = (counting: boolean): void => {
    if (counting) cpuAtStart = cpuSeconds(server.pid);
    else cpu = cpuSeconds(server.pid) - cpuAtStart;
  };
  const result = await runBindLoad({ host: '127.0.0.1', port: server.port, users: USERS, password: Buffer.from('password'), dn: userDn },
    { connections, seconds: SECONDS, warmUpSeconds: WARM_UP_SECONDS, onCounting });
  const errors = Object.values(result.errors).reduce((a, b) => a + b, 0);
  return { throughput: result.throughput, operations: result.operations, errors, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpu };
}

/** Runs at once on several servers, added up: throughput, operations, errors and CPU summed, latency the worse server's. */
function together(parts: readonly Measured[]): Measured {
  const sum = (pick: (m: Measured) => number) => parts.reduce((total, part) => total + pick(part), 0);
  const worst = (pick: (m: Measured) => number) => Math.max(...parts.map(pick));
  return {
    throughput: sum((m) => m.throughput), operations: sum((m) => m.operations), errors: sum((m) => m.errors), cpu: sum((m) => m.cpu),
    p50Ms: worst((m) => m.p50Ms), p99Ms: worst((m) => m.p99Ms),
  };
}

/** The bind load split evenly over `servers`, run at once. */
async function splitBindRun(servers: readonly BenchServer[]): Promise<Measured> {
  const share = (i: number) => Math.floor(CONNECTIONS / servers.length) + (i < CONNECTIONS % servers.length ? 1 : 0);
  return together(await Promise.all(servers.map((server, i) => bindRun(server, share(i)))));
}

/** A modrate run (the project's modify load engine, in this process) against `server`. */
async function modifyRun(server: BenchServer): Promise<Measured> {
  const config = parseModrateOptions([
    '-h', '127.0.0.1', '-p', String(server.port), '-c', String(MODIFY_CONNECTIONS), '-f', '-B', String(WARM_UP_SECONDS), '-d', String(SECONDS),
    '-D', BENCH_ADMIN.dn, '-w', BENCH_ADMIN.password, '-b', `uid=user.%s,ou=People,${SUFFIX}`, '-g', `rand(0,${USERS})`,
    '-M', 'description:randstr(16)',
  ]);
  await probe(config);
  const { summary } = await startLoad(config, MODRATE.workload(config)).done;
  return { throughput: summary.throughput, operations: summary.operations, errors: summary.errors, p50Ms: summary.p50Ms, p99Ms: summary.p99Ms, cpu: 0 };
}

/** Entries under the suffix as `port` returns them to the admin. */
async function countEntries(port: number): Promise<number> {
  const connection = await adminConnection(port, BENCH_ADMIN);
  try {
    const filter = filters.parseString('(objectClass=*)').toBer().buffer;
    const found = await connection.search({ base: SUFFIX, scope: 2, deref: 0, filter, attributes: ['1.1'] });
    if (found.code !== 0) throw new Error(`counting the entries on port ${port}: result code ${found.code}`);
    return found.entries;
  } finally {
    connection.unbindAndClose();
  }
}

/** `import-ldif --store`: the LDIF into the PostgreSQL store, timed. */
async function importIntoStore(ldif: string, url: string): Promise<AddLoad> {
  process.stderr.write('loading the PostgreSQL store with import-ldif --store...\n');
  const started = performance.now();
  const result = await run(process.execPath, [LEVELDAP_BIN, 'import-ldif', ldif, '--store', url]);
  if (result.code !== 0) throw new Error(`import-ldif --store failed: ${result.stderr}`);
  const entries = Number(/imported (\d+) entries/.exec(result.stderr + result.stdout)?.[1] ?? Number.NaN);
  return { entries, seconds: (performance.now() - started) / 1000 };
}

/** `serve` as a node of the cluster's store, one thread; with a metrics port when given. */
async function startNode(cluster: PostgresCluster, dir: string, name: string, metricsPort?: number): Promise<{ server: BenchServer; seconds: number }> {
  const started = performance.now();
  const server = await serveLeveldap(join(dir, `node-${name}`), [], [
    '--store', cluster.url, '--node-name', name, '--threads', '1', ...(metricsPort === undefined ? [] : ['--metrics-port', String(metricsPort)]),
  ]);
  return { server, seconds: (performance.now() - started) / 1000 };
}

/** Node A on the empty store, loaded through LDAP adds; then node B, which copies the store. Both are pushed on `servers` (to stop). */
async function startNodes(
  cluster: PostgresCluster, ldif: string, dir: string, servers: BenchServer[], metricsPort: number,
): Promise<{ store: StoreLoad; nodeA: BenchServer; nodeB: BenchServer }> {
  const imported = LOAD === 'ldap' ? undefined : await importIntoStore(ldif, cluster.url);
  const a = await startNode(cluster, dir, 'a', metricsPort);
  servers.push(a.server);
  if (!imported) process.stderr.write(`loading the PostgreSQL store through node A (${LOAD_CONNECTIONS} connections)...\n`);
  const load = imported ?? await addLdif(ldif, a.server.port, BENCH_ADMIN, LOAD_CONNECTIONS);
  process.stderr.write('starting node B (copies the store)...\n');
  const b = await startNode(cluster, dir, 'b');
  servers.push(b.server);
  const store = { load, nodeAStartSeconds: a.seconds, nodeBCopySeconds: b.seconds, nodeBEntries: await countEntries(b.server.port) };
  return { store, nodeA: a.server, nodeB: b.server };
}

/** The bind measurements 1 and 2, in rotation. */
function bindRounds(scheme: string, s: { ldb1: BenchServer; ldb2: BenchServer; nodeA: BenchServer; nodeB: BenchServer }): Promise<Map<string, Best>> {
  return bestOf([
    { label: LEVELDB_1, run: () => bindRun(s.ldb1, CONNECTIONS) },
    { label: NODE, run: () => bindRun(s.nodeA, CONNECTIONS) },
    { label: LEVELDB_2, run: () => bindRun(s.ldb2, CONNECTIONS) },
    { label: TWO_NODES, run: () => splitBindRun([s.nodeA, s.nodeB]) },
  ], `${scheme} binds`);
}

/** Measurement 3: VISIBILITY_SAMPLES writes through A, each polled for on B. */
async function visibility(nodeA: BenchServer, nodeB: BenchServer): Promise<WriteResult['visibility']> {
  process.stderr.write(`A->B visibility: ${VISIBILITY_SAMPLES} samples...\n`);
  const writer = await adminConnection(nodeA.port, BENCH_ADMIN);
  const reader = await LdapConnection.open(local(nodeB.port));
  const seenMs: number[] = [];
  const writeMs: number[] = [];
  try {
    for (let i = 0; i < VISIBILITY_SAMPLES; i += 1) {
      const sample = await visibilitySample(writer, reader, userDn(randomUser()), `seen-${i}-${randomBytes(6).toString('hex')}`);
      seenMs.push(sample.seenMs);
      writeMs.push(sample.writeMs);
    }
  } finally {
    writer.unbindAndClose();
    reader.unbindAndClose();
  }
  return { seenMs: seenMs.sort((a, b) => a - b), writeMs: writeMs.sort((a, b) => a - b) };
}

/** Measurements 4 and 5: modify runs in rotation, node A's write metrics read around each of its runs. */
async function modifyRounds(ldb1: BenchServer, nodeA: BenchServer, metricsPort: number): Promise<Pick<WriteResult, 'modifies' | 'applyWait'>> {
  const deltas: WriteMetrics[] = [];
  const onNode = async (): Promise<Measured> => {
    const before = await writeMetrics(metricsPort);
    const result = await modifyRun(nodeA);
    deltas.push(combine(await writeMetrics(metricsPort), before, -1));
    return result;
  };
  const modifies = await bestOf([{ label: LEVELDB_1, run: () => modifyRun(ldb1) }, { label: NODE, run: onNode }], 'modifies');
  return { modifies, applyWait: deltas.reduce((total, delta) => combine(total, delta, 1)) };
}

async function writes(ldb1: BenchServer, nodeA: BenchServer, nodeB: BenchServer, metricsPort: number): Promise<WriteResult> {
  const seen = await visibility(nodeA, nodeB);
  const withB = await modifyRounds(ldb1, nodeA, metricsPort);
  // Node B applies every write node A makes; on a machine of their own it would not share node A's cores.
  await nodeB.stop();
  const modifiesAlone = await bestOf([{ label: LEVELDB_1, run: () => modifyRun(ldb1) }, { label: NODE_ALONE, run: () => modifyRun(nodeA) }], 'modifies (node B stopped)');
  return { visibility: seen, ...withB, modifiesAlone };
}

/** Everything for one scheme (the write measurements too when `withWrites`), every server and the cluster stopped after. */
async function benchScheme(scheme: string, withWrites: boolean): Promise<{ result: SchemeResult; writes?: WriteResult }> {
  process.stderr.write(`${scheme}: generating ${USERS} users...\n`);
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-scale-out-'));
  const servers: BenchServer[] = [];
  let cluster: PostgresCluster | undefined;
  try {
    const ldif = join(dir, 'users.ldif');
    await makeLdifFile(ldif, ['--users', String(USERS), '--scheme', scheme, '--seed', 'bench', '--base-dn', SUFFIX]);
    const ldb1 = await startLeveldap(ldif, join(dir, 'leveldb-1'), [], ['--threads', '1']);
    servers.push(ldb1);
    const ldb2 = await startLeveldap(ldif, join(dir, 'leveldb-2'), [], ['--threads', '2']);
    servers.push(ldb2);
    cluster = await startPostgres();
    const metricsPort = await freePort();
    const { store, nodeA, nodeB } = await startNodes(cluster, ldif, dir, servers, metricsPort);
    const binds = await bindRounds(scheme, { ldb1, ldb2, nodeA, nodeB });
    const result = { scheme, store, binds };
    return withWrites ? { result, writes: await writes(ldb1, nodeA, nodeB, metricsPort) } : { result };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await cluster?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

const info = machine();
const results: SchemeResult[] = [];
let written: WriteResult | undefined;
for (const [index, scheme] of SCHEMES.entries()) {
  const { result, writes: w } = await benchScheme(scheme, index === 0);
  results.push(result);
  written ??= w;
}
const targets = [...results.flatMap(bindTargets), ...(written ? writeTargets(written) : [])];
process.stdout.write([
  '', `Machine: ${info.cores} cores (${info.cpu}), load average before the run ${info.loadAverageBefore.join(' ')}, after ${loadavg().map((v) => v.toFixed(2)).join(' ')}; Node ${info.node}, ${info.postgres}.`,
  `${USERS} users; binds: ${CONNECTIONS} connections, modifies: ${MODIFY_CONNECTIONS} connections; ${SECONDS} s counted per run after ${WARM_UP_SECONDS} s of warm-up, best of ${ROUNDS} alternating runs.`,
  '', storeTable(results, LOAD), '', bindTable(results), '',
  ...(written ? [writeTable(written), '', ...writeLines(written), ''] : []),
  targetTable(targets), '', json(info, { USERS, SECONDS, ROUNDS, CONNECTIONS, MODIFY_CONNECTIONS, LOAD_CONNECTIONS, VISIBILITY_SAMPLES }, results, written, targets), '',
].join('\n'));
