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
 *    synced), alternating for ROUNDS rounds, best kept; the ratio.
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
import { combine, quantileBucket, quantile, visibilitySample, writeMetrics, type WriteMetrics } from './scale-out-probes.js';

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

const LEVELDB_1 = 'LevelDB-only, 1 thread';
const LEVELDB_2 = 'LevelDB-only, 2 threads';
const NODE = 'PostgreSQL node A, 1 thread';
const TWO_NODES = 'PostgreSQL nodes A+B, 1 thread each';

/** A load run's outcome: throughput, latency, errors and (binds) the servers' CPU seconds over the counted window. */
interface Measured {
  readonly throughput: number;
  readonly operations: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpu: number;
}

/** A setup's best run of the rounds, and the throughput of every run. */
interface Best {
  readonly best: Measured;
  readonly runs: number[];
}

interface StoreLoad {
  readonly load: AddLoad;
  readonly nodeAStartSeconds: number;
  readonly nodeBCopySeconds: number;
  readonly nodeBEntries: number;
}

interface SchemeResult {
  readonly scheme: string;
  readonly store: StoreLoad;
  readonly binds: ReadonlyMap<string, Best>;
}

interface WriteResult {
  readonly visibility: { readonly seenMs: readonly number[]; readonly writeMs: readonly number[] };
  readonly modifies: ReadonlyMap<string, Best>;
  readonly applyWait: WriteMetrics;
}

interface Machine {
  readonly cores: number;
  readonly cpu: string;
  readonly loadAverageBefore: readonly number[];
  readonly node: string;
  readonly postgres: string;
}

/** The machine, taken before anything starts. */
function machine(): Machine {
  const bin = postgresBinDir();
  return {
    cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', loadAverageBefore: loadavg().map((value) => Number(value.toFixed(2))),
    node: process.version, postgres: bin === undefined ? 'not installed' : execFileSync(join(bin, 'postgres'), ['--version']).toString().trim(),
  };
}

/** `items` starting at item `round` (mod its length): a slot of the rotation is not always the same item's. */
function rotated<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
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
  return { visibility: seen, ...(await modifyRounds(ldb1, nodeA, metricsPort)) };
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

// ---- report ----

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(2) : String(value));
const ratio = (a: number, b: number): number => (b > 0 ? a / b : Number.NaN);

function markdown(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function bindTable(results: readonly SchemeResult[]): string {
  const rows = results.flatMap(({ scheme, binds }) => [...binds].map(([label, { best, runs }]) => [
    scheme, label, best.throughput.toFixed(0), ms(best.p50Ms), ms(best.p99Ms), String(best.errors),
    best.cpu > 0 ? (best.operations / best.cpu).toFixed(0) : '-', runs.map((run) => run.toFixed(0)).join(' '),
  ]));
  return markdown(['scheme', 'setup', 'binds/s (best)', 'p50 ms', 'p99 ms', 'errors', 'binds per CPU-second', 'every run, binds/s'], rows);
}

function storeTable(results: readonly SchemeResult[]): string {
  return markdown(['scheme', `entries loaded (${LOAD === 'ldap' ? 'LDAP adds through node A' : 'import-ldif --store'})`, 'seconds', 'entries/s', 'node A start (its copy), s', 'node B start (snapshot copy), s', 'entries on node B'],
    results.map(({ scheme, store }) => [
      scheme, String(store.load.entries), store.load.seconds.toFixed(1), (store.load.entries / store.load.seconds).toFixed(0),
      store.nodeAStartSeconds.toFixed(2), store.nodeBCopySeconds.toFixed(2), String(store.nodeBEntries),
    ]));
}

function writeTable(w: WriteResult): string {
  const rows = [...w.modifies].map(([label, { best, runs }]) => [
    label, best.throughput.toFixed(0), ms(best.p50Ms), ms(best.p99Ms), String(best.errors), runs.map((run) => run.toFixed(0)).join(' '),
  ]);
  return markdown(['server', 'modifies/s (best)', 'p50 ms', 'p99 ms', 'errors', 'every run, modifies/s'], rows);
}

interface Target {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly goal: string;
  readonly met: boolean;
}

function bindTargets({ scheme, binds }: SchemeResult): Target[] {
  const one = binds.get(LEVELDB_1)!.best;
  const node = binds.get(NODE)!.best;
  const bindRatio = ratio(node.throughput, one.throughput);
  const added = node.p50Ms - one.p50Ms;
  const scaled = ratio(binds.get(TWO_NODES)!.best.throughput, binds.get(LEVELDB_2)!.best.throughput);
  return [
    { name: `${scheme}: binds/s, node / LevelDB-only (1 thread each)`, value: bindRatio, unit: 'x', goal: '>= 0.95x', met: bindRatio >= 0.95 },
    { name: `${scheme}: p50 added by the node`, value: added, unit: 'ms', goal: '<= 0.05 ms', met: added <= 0.05 },
    { name: `${scheme}: binds/s, 2 nodes x 1 thread / LevelDB-only x 2 threads`, value: scaled, unit: 'x', goal: '>= 0.90x', met: scaled >= 0.9 },
  ];
}

function writeTargets(w: WriteResult): Target[] {
  const visible = quantile(w.visibility.seenMs, 0.99);
  const wait = quantileBucket(w.applyWait.applyWait, 0.99).upper * 1000;
  const modifyRatio = ratio(w.modifies.get(NODE)!.best.throughput, w.modifies.get(LEVELDB_1)!.best.throughput);
  return [
    { name: 'A->B visibility p99', value: visible, unit: 'ms', goal: '<= 50 ms', met: visible <= 50 },
    { name: 'read-your-writes wait p99 (bucket upper bound)', value: wait, unit: 'ms', goal: '<= 10 ms', met: wait <= 10 },
    { name: 'modifies/s, node / LevelDB-only (synced)', value: modifyRatio, unit: 'x', goal: '>= 0.5x', met: modifyRatio >= 0.5 },
  ];
}

function targetTable(targets: readonly Target[]): string {
  return markdown(['target', 'measured', 'goal', 'met'], targets.map((t) => [t.name, `${t.unit === 'x' ? t.value.toFixed(2) : ms(t.value)} ${t.unit}`, t.goal, t.met ? 'yes' : '**no**']));
}

function writeLines(w: WriteResult): string[] {
  const { seenMs, writeMs } = w.visibility;
  const h = w.applyWait.applyWait;
  const bound = (fraction: number) => {
    const { lower, upper } = quantileBucket(h, fraction);
    return `in (${ms(lower * 1000)}, ${ms(upper * 1000)}] ms`;
  };
  return [
    `A->B visibility over ${seenMs.length} modifies (from sending the modify to A until B returns it): p50 ${ms(quantile(seenMs, 0.5))} ms, p99 ${ms(quantile(seenMs, 0.99))} ms, max ${ms(seenMs.at(-1) ?? Number.NaN)} ms; the modify's response on A: p50 ${ms(quantile(writeMs, 0.5))} ms, p99 ${ms(quantile(writeMs, 0.99))} ms.`,
    `Read-your-writes wait on node A over its modify runs (leveldap_postgres_apply_wait_seconds from /metrics; bucket-level estimates: the bucket holding the percentile; the target is checked against its upper bound): ${h.count} writes, p50 ${bound(0.5)}, p99 ${bound(0.99)}, mean ${ms(ratio(h.sum, h.count) * 1000)} ms (exact); ${w.applyWait.commits} commits, ${w.applyWait.staleRetries} stale retries.`,
  ];
}

function json(info: Machine, results: readonly SchemeResult[], w: WriteResult | undefined, targets: readonly Target[]): string {
  const bests = (map: ReadonlyMap<string, Best>) => Object.fromEntries([...map].map(([label, best]) => [label, best]));
  return JSON.stringify({
    machine: info, settings: { USERS, SECONDS, ROUNDS, CONNECTIONS, MODIFY_CONNECTIONS, LOAD_CONNECTIONS, VISIBILITY_SAMPLES },
    schemes: results.map((r) => ({ scheme: r.scheme, store: r.store, binds: bests(r.binds) })),
    ...(w && {
      writes: {
        modifies: bests(w.modifies), applyWait: { ...w.applyWait, p50Bucket: quantileBucket(w.applyWait.applyWait, 0.5), p99Bucket: quantileBucket(w.applyWait.applyWait, 0.99) },
        visibility: { p50Ms: quantile(w.visibility.seenMs, 0.5), p99Ms: quantile(w.visibility.seenMs, 0.99), writeP50Ms: quantile(w.visibility.writeMs, 0.5), writeP99Ms: quantile(w.visibility.writeMs, 0.99) },
      },
    }),
    targets,
  }, (_key, value: unknown) => (value === Number.POSITIVE_INFINITY ? 'Infinity' : value));
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
  '', storeTable(results), '', bindTable(results), '',
  ...(written ? [writeTable(written), '', ...writeLines(written), ''] : []),
  targetTable(targets), '', json(info, results, written, targets), '',
].join('\n'));
