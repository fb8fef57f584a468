/**
 * leveldap against OpenLDAP slapd at scale (issue 18, "A million users"), side by side in one
 * run, for each size in SIZES: one make-ldif LDIF of that many users with pre-hashed {SSHA512}
 * passwords (~680 bytes an entry), then
 *   1. import: `leveldap import-ldif` (its default --workers, and the compaction it runs after the
 *      load, which is part of its time) against `slapadd -q -l` (back_mdb), wall and CPU seconds;
 *   2. the database's size on disk once loaded (allocated bytes, as du counts them);
 *   3. SECONDS of random binds over the whole user set (bench/bind-load.ts, CONNECTIONS
 *      connections, one bind outstanding on each), each server started just before its run and
 *      stopped after it; counting starts once the server has answered an anonymous bind on each
 *      of CONNECTIONS connections (leveldap's port accepts before its serving threads are up: the
 *      time from starting the server to then is reported as "start to serving"); binds/s and
 *      p99.9 for the first INTERVAL seconds (a freshly started server: cold tables and caches,
 *      code not yet optimized) and for the rest, and the series of every INTERVAL;
 *   4. the server's resident memory right after its run (anonymous + file-backed: both servers
 *      map their database files), the most seen (every 500 ms), its CPU over the run;
 * and every figure's ratio leveldap / slapd. The server imported and measured first alternates
 * from one size to the next. slapd is configured as bench-binds and bench-schemes configure it
 * (slapdSettings: threads for the cores, `loglevel 0`; modules pw-sha2, pw-pbkdf2) with the
 * indexes leveldap has by default (SLAPD_INDEX_LINES, equality) and a 16 GiB map size (address
 * space only; the default 1 GiB cannot hold a million users); leveldap runs `serve` with its
 * defaults and --log-level warn. Prints the machine (cores, memory, load average before and after
 * each size), a Markdown table (also written to $TMPDIR/leveldap-bench-scale.md), the bind series,
 * how each figure grows from one size to the next, and a final JSON line. The temporary
 * directories are removed at the end (1,000,000 users take about 3.5 GB while they exist; the free
 * space of $TMPDIR is checked first).
 *
 * Run: npm run build && node dist/bench/bench-scale.js
 * Env: SIZES (10000,100000,1000000), SECONDS of binds per server (60), INTERVAL seconds of the
 * series (10), WARM_UP seconds of binds before counting starts (0: the first interval is the cold
 * start), CONNECTIONS (32), FIRST (slapd or leveldap: who goes first at the first size; slapd),
 * SERVE_ARGS (more `leveldap serve` flags, e.g. "--cache-mb 32"), DISK_CHECK=0 to start even when
 * $TMPDIR seems short of space, TMPDIR (where the LDIF and databases go).
 */
import { mkdtemp, readdir, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { mergeIntervals, runBindLoad, summarize, waitUntilAnswering, type LoadResult } from './bind-load.js';
import { childCpuSeconds, cpuSeconds, residentBytes, residentParts } from '../src/harness/process-stats.js';
import { cancelOnExit, onExit } from '../src/harness/exit-cleanup.js';
import { run } from '../src/harness/run.js';
import { requireProgram, type Slapd } from '../src/harness/slapd.js';
import {
  importLeveldap, loadSlapd, makeLdifFile, serveLeveldap, serveSlapd, SLAPD_INDEX_LINES, SLAPD_LARGE_MAP_BYTES, slapdSettings, type BenchServer,
} from '../src/bench-schemes/servers.js';
import {
  growthLines, jsonReport, mainTable, seriesTable, type BindRun, type ImportFigures, type Machine, type ServerName, type Settings, type SizeResult,
} from './scale-report.js';

const SIZES = (process.env.SIZES ?? '10000,100000,1000000').split(',').map(Number);
const SECONDS = Number(process.env.SECONDS ?? 60);
const INTERVAL = Number(process.env.INTERVAL ?? 10);
const WARM_UP = Number(process.env.WARM_UP ?? 0);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const FIRST: ServerName = process.env.FIRST === 'leveldap' ? 'leveldap' : 'slapd';
const SERVE_ARGS = (process.env.SERVE_ARGS ?? '').split(' ').filter(Boolean);
const DISK_CHECK = process.env.DISK_CHECK !== '0';
const SUFFIX = 'dc=example,dc=com';
/** What a user takes at most while a size runs: its LDIF (~680 B), slapd's database (~1.5 KB), leveldap's before compaction (~1 KB), with room to spare. */
const DISK_BYTES_PER_USER = 4096;
const SLAPD = { ...slapdSettings(), databaseLines: SLAPD_INDEX_LINES, maxSize: SLAPD_LARGE_MAP_BYTES } as const;

const log = (text: string) => process.stderr.write(`bench-scale: ${text}\n`);

function checkSettings(): void {
  const bad = SIZES.find((n) => !(Number.isSafeInteger(n) && n > 0));
  if (bad !== undefined) throw new Error(`SIZES: whole numbers of users, not ${process.env.SIZES}`);
  for (const [name, value, least] of [['SECONDS', SECONDS, 1], ['INTERVAL', INTERVAL, 1], ['WARM_UP', WARM_UP, 0], ['CONNECTIONS', CONNECTIONS, 1]] as const) {
    if (!(Number.isFinite(value) && value >= least)) throw new Error(`${name}: a number of at least ${least}, not ${value}`);
  }
}

/** Fails before anything runs when $TMPDIR has less free space than the largest size needs. */
async function checkDisk(): Promise<void> {
  const needed = Math.max(...SIZES) * DISK_BYTES_PER_USER + 256 * 2 ** 20;
  const fs = await statfs(tmpdir());
  const free = fs.bavail * fs.bsize;
  const message = `${tmpdir()} has ${(free / 2 ** 30).toFixed(1)} GiB free; ${Math.max(...SIZES)} users need about ${(needed / 2 ** 30).toFixed(1)} GiB`;
  log(message);
  if (free < needed && DISK_CHECK) throw new Error(`${message} (DISK_CHECK=0 to try anyway, TMPDIR=... for another disk)`);
}

async function describeMachine(): Promise<Machine> {
  const version = await run(requireProgram('slapd'), ['-VV']);
  const slapd = /slapd ([^\s$]+)/.exec(version.stderr)?.[1] ?? 'unknown';
  return {
    cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', memoryMb: Math.round(totalmem() / 2 ** 20),
    node: process.version, slapd, loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
  };
}

/** Bytes allocated to the files under `path` (du's figure, not the files' lengths). */
async function diskBytes(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.blocks * 512;
  const sizes = await Promise.all((await readdir(path)).map((name) => diskBytes(join(path, name))));
  return sizes.reduce((a, b) => a + b, 0);
}

/** Runs `load`, timing it: wall seconds, and the CPU seconds of the child process it waited for. */
async function timed<T>(load: () => Promise<T>): Promise<{ value: T; seconds: number; cpuSeconds: number }> {
  const [start, cpuStart] = [performance.now(), childCpuSeconds()];
  const value = await load();
  return { value, seconds: (performance.now() - start) / 1000, cpuSeconds: childCpuSeconds() - cpuStart };
}

/** A server of the comparison: its import, then serving (each once), then disposal (always). */
interface Contender {
  readonly name: ServerName;
  load(): Promise<ImportFigures>;
  serve(): Promise<BenchServer>;
  dispose(): Promise<void>;
}

function slapdContender(ldif: string): Contender {
  let slapd: Slapd | undefined;
  return {
    name: 'slapd',
    async load() {
      const { value, seconds, cpuSeconds } = await timed(() => loadSlapd(ldif, SLAPD));
      slapd = value;
      return { seconds, cpuSeconds, diskBytes: await diskBytes(join(slapd.dir, 'db')) };
    },
    serve: () => serveSlapd(slapd!),
    dispose: async () => slapd?.stop(),
  };
}

function leveldapContender(ldif: string, data: string): Contender {
  return {
    name: 'leveldap',
    async load() {
      const { value, seconds, cpuSeconds } = await timed(() => importLeveldap(ldif, data));
      const compaction = /compacted the database in ([0-9.]+) s/.exec(value)?.[1];
      return { seconds, cpuSeconds, ...(compaction !== undefined && { compactionSeconds: Number(compaction) }), diskBytes: await diskBytes(data) };
    },
    serve: () => serveLeveldap(data, [], SERVE_ARGS),
    dispose: async () => {},
  };
}

/** How long a server can take from its start to answering binds on every connection (a million users' database opened). */
const READY_TIMEOUT_MS = 120_000;

/** SECONDS of random binds over `users` users against the server, with its CPU over the window and its memory. */
async function measureBinds(server: BenchServer, users: number, readySeconds: number): Promise<BindRun> {
  let [cpuAtStart, cpu, maxRss] = [0, 0, 0];
  const sample = setInterval(() => { maxRss = Math.max(maxRss, residentBytes(server.pid)); }, 500);
  const onCounting = (counting: boolean) => {
    if (counting) cpuAtStart = cpuSeconds(server.pid);
    else cpu = cpuSeconds(server.pid) - cpuAtStart;
  };
  try {
    const { intervals, ...all } = await runBindLoad({
      host: '127.0.0.1', port: server.port, users, password: Buffer.from('password'), dn: (n) => `uid=user.${n},ou=People,${SUFFIX}`,
    }, { connections: CONNECTIONS, seconds: SECONDS, warmUpSeconds: WARM_UP, intervalSeconds: INTERVAL, onCounting });
    const rss = residentParts(server.pid);
    const series: LoadResult[] = intervals!.map((interval) => summarize(interval, interval.seconds));
    const later = intervals!.slice(1);
    const rest = later.length > 0 ? mergeIntervals(later) : undefined;
    return {
      readySeconds, all, first: series[0]!, rest: rest && summarize(rest, rest.seconds), series,
      cpuSeconds: cpu, rss, maxRssBytes: Math.max(maxRss, rss.total),
    };
  } finally {
    clearInterval(sample);
  }
}

async function importAll(ordered: readonly Contender[], users: number): Promise<Map<ServerName, ImportFigures>> {
  const imports = new Map<ServerName, ImportFigures>();
  for (const contender of ordered) {
    log(`${users} users: importing into ${contender.name}...`);
    const figures = await contender.load();
    log(`${users} users: ${contender.name} imported in ${figures.seconds.toFixed(2)} s, ${(figures.diskBytes / 2 ** 20).toFixed(0)} MB on disk`);
    imports.set(contender.name, figures);
  }
  return imports;
}

async function bindAll(ordered: readonly Contender[], users: number): Promise<Map<ServerName, BindRun>> {
  const binds = new Map<ServerName, BindRun>();
  for (const contender of ordered) {
    log(`${users} users: starting ${contender.name}, then ${SECONDS} s of binds against it...`);
    const started = performance.now();
    const server = await contender.serve();
    try {
      // Counting starts once every serving thread answers (leveldap's port accepts before they do): the
      // first interval is a started server's cold caches, not its start; the start is readySeconds.
      await waitUntilAnswering({ host: '127.0.0.1', port: server.port }, CONNECTIONS, READY_TIMEOUT_MS);
      binds.set(contender.name, await measureBinds(server, users, (performance.now() - started) / 1000));
    } finally {
      await server.stop();
    }
  }
  return binds;
}

async function benchSize(users: number, first: ServerName): Promise<SizeResult> {
  const loadBefore = loadavg();
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-scale-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  onExit(removeDir);
  const ldif = join(dir, 'users.ldif');
  const contenders = [slapdContender(ldif), leveldapContender(ldif, join(dir, 'db'))];
  const ordered = first === 'slapd' ? contenders : [...contenders].reverse();
  try {
    log(`${users} users: generating the LDIF...`);
    await makeLdifFile(ldif, ['--users', String(users), '--scheme', 'SSHA512', '--seed', 'bench', '--base-dn', SUFFIX]);
    const ldifBytes = (await stat(ldif)).size;
    const imports = await importAll(ordered, users);
    await rm(ldif);
    const binds = await bindAll(ordered, users);
    const figures = (name: ServerName) => ({ ...imports.get(name)!, binds: binds.get(name)! });
    return { users, ldifBytes, first, slapd: figures('slapd'), leveldap: figures('leveldap'), loadBefore, loadAfter: loadavg() };
  } finally {
    for (const contender of contenders) await contender.dispose();
    await rm(dir, { recursive: true, force: true });
    cancelOnExit(removeDir);
  }
}

function print(machine: Machine, settings: Settings, results: readonly SizeResult[]): string[] {
  const load = (n: readonly number[]) => n.map((x) => x.toFixed(2)).join(' ');
  return [
    `Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryMb} MB, Node ${machine.node}, slapd ${machine.slapd}; load average at the start ${load(machine.loadAverage)}`,
    ...results.map((r) => `${r.users} users (LDIF ${(r.ldifBytes / 2 ** 20).toFixed(0)} MB, ${r.first} first): load average ${load(r.loadBefore)} before, ${load(r.loadAfter)} after`),
    `Binds: ${settings.connections} connections, ${settings.seconds} s per server after ${settings.warmUpSeconds} s of warm-up, random users over the whole set; `
      + `slapd threads ${settings.slapdThreads}, loglevel 0, ${SLAPD_INDEX_LINES.join(', ')}; leveldap serve --log-level warn ${settings.serveArgs.join(' ')}`.trimEnd(),
    '', ...mainTable(results, settings), '', `Bind series (binds/s, p99.9 ms in brackets, per ${settings.intervalSeconds} s):`, '', ...seriesTable(results, settings),
    '', ...growthLines(results),
  ];
}

async function main(): Promise<void> {
  checkSettings();
  await checkDisk();
  const machine = await describeMachine();
  const settings: Settings = {
    seconds: SECONDS, intervalSeconds: INTERVAL, warmUpSeconds: WARM_UP, connections: CONNECTIONS, slapdThreads: SLAPD.threads, serveArgs: SERVE_ARGS,
  };
  const results: SizeResult[] = [];
  for (const [index, users] of SIZES.entries()) {
    const first: ServerName = (index % 2 === 0) === (FIRST === 'slapd') ? 'slapd' : 'leveldap';
    results.push(await benchSize(users, first));
  }
  const lines = print(machine, settings, results);
  await writeFile(join(tmpdir(), 'leveldap-bench-scale.md'), `${lines.join('\n')}\n`);
  process.stdout.write(`\n${lines.join('\n')}\n\n${JSON.stringify(jsonReport(machine, settings, results))}\n`);
}

await main();
