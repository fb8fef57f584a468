/**
 * Instructions per operation, leveldap against slapd (and other built checkouts, BUILDS): each
 * server runs under valgrind's callgrind, which counts the instructions every thread of the
 * process executes. That count does not move with the machine's load, where throughput and CPU
 * time do (on this shared 2-core machine, by up to 3x within minutes), so it compares builds and
 * servers when a timed benchmark cannot; it does not see what costs time without instructions
 * (cache misses, syscalls' waits, contention), so the timed benchmarks stay the measure of speed.
 *
 * The same USERS-user make-ldif LDIF (~1 KB inetOrgPerson entries, pre-hashed {SSHA512}) in every
 * server; slapd as bench-search runs it (slapdSettings, leveldap's indexes), leveldap with
 * `serve --threads 1` (callgrind runs one thread at a time anyway). Per operation, in order:
 *
 *   bind     SSHA512 binds of random users (authrate -c 4 -f)
 *   search   `(uid=user.N)` for random N, subtree, all attributes, as the admin (searchrate -c 4)
 *
 * WARM operations first (V8 compiles the hot paths meanwhile), then the counters are zeroed
 * (callgrind_control -z), COUNT operations, and a dump (callgrind_control -d, one file per
 * thread): its total over COUNT, and the first thread's alone (leveldap serves there; its other
 * threads are V8's compilers and collector and libuv's pool, slapd's are its workers). The servers run at once (the counts do not depend on it). Clients: this checkout's
 * authrate and searchrate, outside valgrind.
 * Run: npm run build && node dist/bench/bench-instructions.js  (USERS=10000 WARM=3000 COUNT=4000
 * BUILDS=/path/a,/path/b). Needs valgrind (Debian: apt-get install valgrind). About 8 minutes for
 * two servers: a server runs 100-400 times slower under callgrind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BENCH_ADMIN, LEVELDAP_BIN, importLeveldap, loadSlapd, makeLdifFile, slapdSettings, SLAPD_INDEX_LINES, waitForPort,
} from '../src/bench-schemes/servers.js';
import { freePort, requireProgram } from '../src/harness/slapd.js';

const USERS = Number(process.env.USERS ?? 10_000);
const WARM = Number(process.env.WARM ?? 3000);
const COUNT = Number(process.env.COUNT ?? 4000);
const BUILDS = (process.env.BUILDS ?? '').split(',').filter(Boolean);
const SUFFIX = 'dc=example,dc=com';
const CONNECTIONS = 4;
const START_TIMEOUT_MS = 10 * 60_000;
const AUTHRATE = join(LEVELDAP_BIN, '..', 'authrate.js');
const SEARCHRATE = join(LEVELDAP_BIN, '..', 'searchrate.js');

/** A server under callgrind: its label, port, the valgrind process (the server's own pid), its dump folder, its admin. */
interface Counted {
  readonly label: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly dumps: string;
  readonly admin: { readonly dn: string; readonly password: string };
  readonly cleanup: () => Promise<void>;
}

type Operation = 'bind' | 'search';
const OPERATIONS: readonly Operation[] = ['bind', 'search'];

function clientArgs(operation: Operation, server: Counted, count: number): string[] {
  const common = ['-p', String(server.port), '-c', String(CONNECTIONS), '-f', '-m', String(count), '-g', `rand(0,${USERS - 1})`, '--json'];
  if (operation === 'bind') return [AUTHRATE, ...common, '-D', `uid=user.%d,ou=People,${SUFFIX}`, '-w', 'password'];
  return [SEARCHRATE, ...common, '-D', server.admin.dn, '-w', server.admin.password, '-b', SUFFIX, '-s', 'sub', '(uid=user.%d)'];
}

/** Runs a client to the end; rejects unless every operation succeeded. */
async function runClient(args: readonly string[]): Promise<void> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const summary = code === 0 ? JSON.parse(out) as { errors: number } : undefined;
  if (!summary || summary.errors > 0) throw new Error(`${args[0]} ${args.slice(1).join(' ')} failed (${code}): ${out}${err}`);
}

/** The last of what each server under valgrind wrote to stderr, for the error when it exits. */
const stderrTails = new WeakMap<ChildProcess, string>();

function callgrind(dumps: string, command: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(dumps, 'cg.out')}`, ...command],
    { stdio: ['ignore', 'ignore', 'pipe'], env });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderrTails.set(child, ((stderrTails.get(child) ?? '') + chunk).slice(-4096)));
  return child;
}

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** Waits until the server under valgrind listens; its stderr's end in the error when it does not. */
async function listening(port: number, child: ChildProcess, label: string): Promise<void> {
  try {
    await waitForPort(port, () => exited(child), START_TIMEOUT_MS);
  } catch (error) {
    const how = exited(child) ? `exited (${child.exitCode ?? child.signalCode})` : `did not listen within ${START_TIMEOUT_MS / 1000} s`;
    throw new Error(`${label} ${how} under valgrind (${(error as Error).message}):\n${stderrTails.get(child) ?? ''}`);
  }
}

const stopped = (child: ChildProcess): Promise<void> => new Promise((resolve) => {
  if (exited(child)) return resolve();
  child.once('exit', () => resolve());
  child.kill('SIGTERM');
});

async function countedLeveldap(ldif: string, dir: string, label: string, bin: string): Promise<Counted> {
  const data = join(dir, 'db');
  await importLeveldap(ldif, data, [], bin);
  const port = await freePort();
  const child = callgrind(dir, [process.execPath, bin, 'serve', '--threads', '1', '--data', data, '--port', String(port), '--log-level', 'warn'],
    { ...process.env, LEVELDAP_ADMIN_PASSWORD: BENCH_ADMIN.password });
  await listening(port, child, label);
  return { label, port, child, dumps: dir, admin: { dn: BENCH_ADMIN.dn, password: BENCH_ADMIN.password }, cleanup: () => stopped(child) };
}

async function countedSlapd(ldif: string, dir: string): Promise<Counted> {
  await mkdir(dir, { recursive: true });
  const slapd = await loadSlapd(ldif, { ...slapdSettings(), databaseLines: SLAPD_INDEX_LINES });
  const port = await freePort();
  const child = callgrind(dir, [requireProgram('slapd'), '-d', 'none', '-f', slapd.configFile, '-h', `ldap://127.0.0.1:${port}/`]);
  const cleanup = async () => {
    await stopped(child);
    await slapd.stop();
  };
  try {
    await listening(port, child, 'slapd');
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { label: 'slapd', port, child, dumps: dir, admin: { dn: slapd.rootDn, password: slapd.rootPassword }, cleanup };
}

/** callgrind_control on the server (it returns once valgrind has taken the command). */
function control(server: Counted, args: readonly string[]): void {
  const result = spawnSync('callgrind_control', [...args, String(server.child.pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed for ${server.label}: ${result.stderr}`);
}

/** What a dump counted: every thread, and the process's first thread (where `serve --threads 1` serves). */
interface Instructions {
  readonly all: number;
  readonly main: number;
}

/** The dump callgrind writes next in the server's folder, one file per thread (cg.out.N-TT), read once every file is complete. */
async function nextDump(server: Counted, before: ReadonlySet<string>): Promise<Instructions> {
  let last = '';
  for (let tries = 0; tries < 600; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const fresh = (await readdir(server.dumps)).filter((name) => name.startsWith('cg.out.') && !before.has(name)).sort();
    const counts = await Promise.all(fresh.map(async (name) => Number(/^summary: (\d+)$/m.exec(await readFile(join(server.dumps, name), 'utf8'))?.[1] ?? Number.NaN)));
    const seen = fresh.join(',');
    if (fresh.length > 0 && counts.every(Number.isFinite) && seen === last) {
      const main = fresh.findIndex((name) => name.endsWith('-01'));
      return { all: counts.reduce((a, b) => a + b, 0), main: counts[main] ?? Number.NaN };
    }
    last = seen;
  }
  throw new Error(`no callgrind dump from ${server.label}`);
}

/** Instructions per operation: WARM operations, counters zeroed, COUNT operations, a dump. */
async function measure(server: Counted, operation: Operation): Promise<Instructions> {
  await runClient(clientArgs(operation, server, WARM));
  control(server, ['-z']);
  await runClient(clientArgs(operation, server, COUNT));
  const before = new Set(await readdir(server.dumps));
  control(server, ['-d', operation]);
  const counted = await nextDump(server, before);
  return { all: counted.all / COUNT, main: counted.main / COUNT };
}

async function measureAll(server: Counted): Promise<Map<Operation, Instructions>> {
  const counts = new Map<Operation, Instructions>();
  for (const operation of OPERATIONS) {
    process.stderr.write(`${server.label}: ${operation}...\n`);
    counts.set(operation, await measure(server, operation));
  }
  return counts;
}

const count = (value: number): string => Math.round(value).toLocaleString('en-US');

function table(results: readonly { readonly label: string; readonly counts: Map<Operation, Instructions> }[]): string {
  const slapd = results.find((result) => result.label === 'slapd')!.counts;
  const lines = ['| operation | server | instructions per operation, all threads | / slapd | first thread only |', '|---|---|---:|---:|---:|'];
  for (const operation of OPERATIONS) {
    for (const { label, counts } of results) {
      const { all, main } = counts.get(operation)!;
      const ratio = label === 'slapd' ? '' : `${(all / slapd.get(operation)!.all).toFixed(2)}x`;
      lines.push(`| ${operation} | ${label} | ${count(all)} | ${ratio} | ${count(main)} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  requireProgram('valgrind');
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bench-instructions-'));
  const servers: Counted[] = [];
  try {
    const ldif = join(dir, 'users.ldif');
    process.stderr.write(`generating ${USERS} users...\n`);
    await makeLdifFile(ldif, ['--users', String(USERS), '--scheme', 'SSHA512', '--seed', 'bench', '--base-dn', SUFFIX]);
    const starting = [
      countedSlapd(ldif, join(dir, 'slapd')),
      countedLeveldap(ldif, join(dir, 'leveldap'), 'leveldap', LEVELDAP_BIN),
      ...BUILDS.map((build, i) => countedLeveldap(ldif, join(dir, `build-${i}`), `leveldap (${build})`, join(build, 'bin', 'leveldap.js'))),
    ];
    const settled = await Promise.allSettled(starting);
    for (const started of settled) if (started.status === 'fulfilled') servers.push(started.value);
    const failed = settled.find((started): started is PromiseRejectedResult => started.status === 'rejected');
    if (failed) throw failed.reason;
    process.stderr.write('every server listens under callgrind; measuring...\n');
    const results = await Promise.all(servers.map(async (server) => ({ label: server.label, counts: await measureAll(server) })));
    const heading = `${USERS} users, ${WARM} operations to warm up, then ${COUNT} counted, ${CONNECTIONS} connections, Node ${process.version}`;
    process.stdout.write(`\n${heading}\n\n${table(results)}\n`);
  } finally {
    await Promise.all(servers.map((server) => server.cleanup()));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
