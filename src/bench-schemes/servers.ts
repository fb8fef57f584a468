/**
 * The servers bench-schemes measures: leveldap (import-ldif, then `serve` in its own process,
 * through the same CLI users run) and, to compare, OpenLDAP slapd (src/harness/slapd.ts), both
 * loaded from the same LDIF file; bench/ uses them too, a step at a time (import, then serve).
 */
import { spawn } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../harness/run.js';
import { canConnect, createSlapd, freePort, type Slapd, type SlapdOptions } from '../harness/slapd.js';
import { DEFAULT_INDEXES } from '../store/indexes.js';
import { errorMessage } from '../errors.js';

/** bin/leveldap.js, from dist/src/bench-schemes/. */
export const LEVELDAP_BIN = fileURLToPath(new URL('../../../bin/leveldap.js', import.meta.url));

/** The admin of the leveldap servers benches start (serve's default admin DN, this password). */
export const BENCH_ADMIN = { dn: 'cn=Directory Manager', password: 'bench-schemes' } as const;

export interface BenchServer {
  readonly name: 'leveldap' | 'slapd';
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The modules bench-schemes loads into slapd (from /usr/lib/ldap, Debian's slapd and slapd-contrib). */
export const SLAPD_MODULES = ['pw-sha2.so', 'pw-pbkdf2.so', 'argon2.so'];

/**
 * Schemes slapd verifies with SLAPD_MODULES loaded: pw-sha2's, pw-pbkdf2's, argon2's {ARGON2}, and
 * {CRYPT} (built in, through the system's crypt(3): yescrypt, SHA-crypt, bcrypt). Not {BCRYPT},
 * OpenDJ's name, nor 389's {CRYPT-*} names.
 */
const SLAPD_SCHEMES = new Set(['SHA', 'SSHA', 'MD5', 'SMD5', 'SHA256', 'SSHA256', 'SHA384', 'SSHA384', 'SHA512', 'SSHA512',
  'PBKDF2', 'PBKDF2-SHA1', 'PBKDF2-SHA256', 'PBKDF2-SHA512', 'CLEAR', 'ARGON2', 'CRYPT']);

export const slapdVerifies = (scheme: string): boolean => SLAPD_SCHEMES.has(scheme.toUpperCase());

/** Runs `leveldap ARGS`; rejects with its stderr. */
export async function leveldap(args: readonly string[], bin = LEVELDAP_BIN): Promise<string> {
  const result = await run(process.execPath, [bin, ...args]);
  if (result.code !== 0) throw new Error(`leveldap ${args[0]} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

/** `leveldap make-ldif ARGS > file` (the output can be far larger than run() keeps). */
export async function makeLdifFile(file: string, args: readonly string[]): Promise<void> {
  const output = await open(file, 'w');
  try {
    const child = spawn(process.execPath, [LEVELDAP_BIN, 'make-ldif', ...args], { stdio: ['ignore', output.fd, 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
    const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
    if (code !== 0) throw new Error(`leveldap make-ldif failed: ${stderr.trim()}`);
  } finally {
    await output.close();
  }
}

/** Polls the port every 50 ms until it accepts a connection; throws once `exited()` or after `timeoutMs`. */
export async function waitForPort(port: number, exited: () => boolean, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline && !exited();) {
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server did not start listening on ${port}`);
}

/** `leveldap import-ldif FILE --data DATA` (import-ldif's defaults: its workers, the compaction after the load); resolves with what it printed. */
export function importLeveldap(ldifFile: string, data: string, plugins: readonly string[] = [], bin = LEVELDAP_BIN): Promise<string> {
  return leveldap(['import-ldif', ldifFile, '--data', data, ...plugins.flatMap((file) => ['--scheme-plugin', file])], bin);
}

/** `leveldap serve` on the database at `data`, on a free port (log level warn, as slapd logs nothing per bind; `serveArgs` after). */
export async function serveLeveldap(
  data: string, plugins: readonly string[] = [], serveArgs: readonly string[] = [], bin = LEVELDAP_BIN,
): Promise<BenchServer> {
  const pluginArgs = plugins.flatMap((file) => ['--scheme-plugin', file]);
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve', '--data', data, '--port', String(port), '--log-level', 'warn', ...pluginArgs, ...serveArgs],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LEVELDAP_ADMIN_PASSWORD: BENCH_ADMIN.password } });
  let stderr = '';
  let stopping = false;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`leveldap serve (pid ${child.pid}) exited by itself (${signal ?? `status ${code}`}):\n${stderr}\n`);
  });
  const stop = () => new Promise<void>((resolve) => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  try {
    await waitForPort(port, () => child.exitCode !== null);
  } catch (error) {
    await stop();
    throw new Error(`${errorMessage(error)}\n${stderr}`);
  }
  return { name: 'leveldap', port, pid: child.pid!, stop };
}

/**
 * Imports the LDIF file into `dir` and serves it (serveLeveldap).
 * `bin` runs another checkout's bin/leveldap.js instead of this one (bench-binds' BUILDS).
 */
export async function startLeveldap(
  ldifFile: string, dir: string, plugins: readonly string[], serveArgs: readonly string[] = [], bin = LEVELDAP_BIN,
): Promise<BenchServer> {
  const data = join(dir, 'db');
  await importLeveldap(ldifFile, data, plugins, bin);
  return serveLeveldap(data, plugins, serveArgs, bin);
}

/**
 * slapd as an operator would set it up for this machine: Symas' advice for the worker pool
 * (16 threads, slapd's default, up to 4 cores; 4 per core beyond), and nothing logged per
 * operation, as leveldap serves with --log-level warn (slapd's default loglevel, stats, logs
 * every connection, bind and result).
 */
export function slapdSettings(cores = availableParallelism()): { threads: number; logLevel: string } {
  return { threads: Math.max(16, 4 * cores), logLevel: '0' };
}

/**
 * An mdb map size for directories of a million users and more (16 GiB: address space only; the
 * default 1 GiB cannot hold a million make-ldif users, which take about 1.9 GB in slapd).
 */
export const SLAPD_LARGE_MAP_BYTES = 16 * 2 ** 30;

/** leveldap's default indexes (DEFAULT_INDEXES, equality; presence is answered from them) as slapd.conf `index` lines. */
export const SLAPD_INDEX_LINES: readonly string[] = DEFAULT_INDEXES.map((name) => `index ${name} eq`);

export type StartedSlapd = BenchServer & { readonly rootDn: string; readonly rootPassword: string };

/** A slapd whose database holds the LDIF file (`slapadd -q -l`), not started yet; `options` as createSlapd's. */
export async function loadSlapd(ldifFile: string, options: SlapdOptions = {}): Promise<Slapd> {
  const slapd = await createSlapd(options);
  try {
    await slapd.slapaddFile(ldifFile);
  } catch (error) {
    await slapd.stop();
    throw error;
  }
  return slapd;
}

/** Starts a loaded slapd; stop() stops it and removes its directory. */
export async function serveSlapd(slapd: Slapd): Promise<StartedSlapd> {
  try {
    await slapd.start();
  } catch (error) {
    await slapd.stop();
    throw error;
  }
  const pid = Number(await readFile(join(slapd.dir, 'slapd.pid'), 'utf8'));
  return { name: 'slapd', port: slapd.port, pid, stop: () => slapd.stop(), rootDn: slapd.rootDn, rootPassword: slapd.rootPassword };
}

/**
 * slapd started on the LDIF, with its root DN and password (for benchmarks that search as the admin);
 * `options` as createSlapd's (its defaults: pw-sha2 and pw-pbkdf2, slapd's own threads and loglevel, as bench-binds runs it).
 */
export async function startSlapd(ldifFile: string, options: SlapdOptions = {}): Promise<StartedSlapd> {
  return serveSlapd(await loadSlapd(ldifFile, options));
}
