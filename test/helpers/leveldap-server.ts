/**
 * Runs a real `leveldap serve` for tests: a throwaway directory loaded with `make-ldif --users N
 * | import-ldif -` (SSHA512, so loading is fast), or left empty for a node of a PostgreSQL store
 * (`empty`, `node`), an admin password in a 0600 file, the server on a free port of 127.0.0.1,
 * its JSON log lines captured. Every instance is killed and its directory removed when the test
 * process exits, so a failed test cannot leave a server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leveldapBin } from './paths.js';
import { collect } from '../../src/harness/run.js';
import { cancelOnExit, onExit } from '../../src/harness/exit-cleanup.js';

export interface LeveldapOptions {
  /** Users made by make-ldif (uid=user.0 .. user.N-1, password "password"); default 1000. */
  readonly users?: number;
  /** More arguments for `leveldap serve` (e.g. `--no-anonymous-read`, `--idle-timeout 1`). */
  readonly args?: readonly string[];
  /** More LDIF records imported after the generated ones (e.g. an entry with its own password). */
  readonly ldif?: string;
  /** false: import with --no-schema-check (records written before the schema was enforced). */
  readonly schemaCheck?: boolean;
  /** true: import nothing, serve an empty --data directory (a node of a PostgreSQL store given in `args` fills it). */
  readonly empty?: boolean;
  /**
   * Serve the database of an earlier instance (its `dir`) instead of making a new one: nothing
   * is imported, the same admin password file is used, and the directory is not removed by
   * this instance (its owner removes it).
   */
  readonly dir?: string;
  /** How long to wait for the "leveldap is listening" line (default 20 s). */
  readonly startTimeoutMs?: number;
  /** More environment variables for the server process. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Be a node of a PostgreSQL store: `--store STORE --node-name NAME`, --data starting empty
   * (nothing is imported: the store holds the entries; with `dir`, the earlier node's copy).
   */
  readonly node?: { readonly store: string; readonly name: string };
  /** The admin password of a new directory (a random one by default): the same for every node of a store, say. */
  readonly adminPassword?: string;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** From the signal to the exit. */
  readonly millis: number;
}

export interface LeveldapServer {
  /** ldap://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** The LDAPS port, when serve was given --ldaps-port. */
  readonly ldapsPort?: number;
  readonly adminDn: string;
  readonly adminPasswordFile: string;
  readonly adminPassword: string;
  /** The database directory given to --data. */
  readonly dataDir: string;
  /** The temporary directory holding the database and the password file. */
  readonly dir: string;
  /** The lines the server wrote on standard output so far (JSON log lines). */
  logs(): string[];
  /** What it wrote on standard error so far. */
  stderr(): string;
  readonly process: ChildProcess;
  /** SIGTERM, then waits for the exit (SIGKILL after `killAfterMs`, 10 s by default); the directory is kept. */
  terminate(killAfterMs?: number): Promise<ExitInfo>;
  /** Stops the server (if running) and removes its directory (if it owns it). Safe to call twice. */
  stop(): Promise<void>;
}

export const ADMIN_DN = 'cn=Directory Manager';

/** An account for LeveldapOptions.ldif: uid=UID under ou=People,dc=example,dc=com, its userPassword the stored value given (base64 in the LDIF). */
export function accountLdif(uid: string, stored: string): string {
  return [`dn: uid=${uid},ou=People,dc=example,dc=com`, 'objectClass: inetOrgPerson', `uid: ${uid}`, `cn: ${uid}`, `sn: ${uid}`,
    `userPassword:: ${Buffer.from(stored).toString('base64')}`, ''].join('\n');
}

/**
 * LEVELDAP_TEST_THREADS=N runs every server of the integration tests with `--threads N` (unless
 * a test asks for its own); without it they serve with serve's default (a thread per core), so
 * the whole suite can be run both ways (`LEVELDAP_TEST_THREADS=1` for the main thread alone).
 */
function threadArgs(args: readonly string[]): string[] {
  const threads = process.env.LEVELDAP_TEST_THREADS;
  return threads && !args.includes('--threads') ? ['--threads', threads] : [];
}
const STOP_TIMEOUT_MS = 10_000;


function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves true when the child exits (at once if it has), false after `ms`. */
function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * `make-ldif --users N` piped into `import-ldif - --scheme SSHA512`, then `ldif` (if any);
 * `schemaCheck: false` imports with --no-schema-check (data written before values were checked).
 */
export async function populateDatabase(db: string, users: number, ldif?: string, schemaCheck = true): Promise<void> {
  const make = spawn(process.execPath, [leveldapBin, 'make-ldif', '--users', String(users)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const importArgs = ['import-ldif', '-', '--data', db, '--scheme', 'SSHA512', ...(schemaCheck ? [] : ['--no-schema-check'])];
  const load = spawn(process.execPath, [leveldapBin, ...importArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
  const makeErr = collect(make.stderr);
  const loadOut = collect(load.stdout);
  const loadErr = collect(load.stderr);
  load.stdin!.on('error', () => {}); // the exit codes tell what went wrong
  make.stdout!.pipe(load.stdin!, { end: false });
  make.stdout!.once('end', () => load.stdin!.end(ldif === undefined ? '' : `\n${ldif}`));
  const status = (child: ChildProcess) => new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  const [made, loaded] = await Promise.all([status(make), status(load)]);
  if (made !== 0) throw new Error(`make-ldif exited with ${made}: ${makeErr()}`);
  if (loaded !== 0) throw new Error(`import-ldif exited with ${loaded}: ${loadErr()}${loadOut()}`);
}

export async function startLeveldap(options: LeveldapOptions = {}): Promise<LeveldapServer> {
  const owned = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'leveldap-serve-')));
  const dataDir = join(dir, 'db');
  const adminPasswordFile = join(dir, 'admin-password');
  let child: ChildProcess | undefined;
  const cleanup = () => {
    if (child && !exited(child)) child.kill('SIGKILL');
    if (owned) rmSync(dir, { recursive: true, force: true });
  };
  onExit(cleanup);

  let adminPassword: string;
  try {
    if (owned) {
      adminPassword = options.adminPassword ?? `admin-${randomBytes(12).toString('hex')}`;
      await writeFile(adminPasswordFile, adminPassword, { mode: 0o600 });
      if (!options.empty && !options.node) await populateDatabase(dataDir, options.users ?? 1000, options.ldif, options.schemaCheck ?? true);
    } else {
      adminPassword = readFileSync(adminPasswordFile, 'utf8');
    }
  } catch (error) {
    cleanup();
    cancelOnExit(cleanup);
    throw error;
  }

  const nodeArgs = options.node ? ['--store', options.node.store, '--node-name', options.node.name] : [];
  const started = spawn(process.execPath, [
    leveldapBin, 'serve', '--data', dataDir, '--port', '0', '--admin-password-file', adminPasswordFile, ...nodeArgs,
    ...threadArgs(options.args ?? []), ...(options.args ?? []),
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  child = started;

  const lines: string[] = [];
  let partial = '';
  let errors = '';
  started.stdout!.setEncoding('utf8');
  started.stderr!.setEncoding('utf8');
  started.stderr!.on('data', (chunk: string) => {
    errors = (errors + chunk).slice(-1024 * 1024);
  });

  const { port, ldapsPort } = await new Promise<ListeningPorts>((resolve, reject) => {
    const timeout = options.startTimeoutMs ?? 20_000;
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`leveldap serve ${why}\nstdout:\n${[...lines, partial].join('\n')}\nstderr:\n${errors}`));
    };
    const timer = setTimeout(() => fail(`did not log "leveldap is listening" within ${timeout} ms`), timeout);
    started.stdout!.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        const listening = listeningPorts(line);
        if (listening !== undefined) {
          clearTimeout(timer);
          resolve(listening);
        }
      }
    });
    started.once('error', (error) => fail(`could not be spawned: ${error.message}`));
    started.once('exit', (code, signal) => fail(`exited with ${code ?? signal} before listening`));
  }).catch(async (error: unknown) => {
    if (!exited(started)) {
      started.kill('SIGKILL');
      await waitForExit(started, STOP_TIMEOUT_MS);
    }
    cleanup();
    cancelOnExit(cleanup);
    throw error;
  });

  let exitInfo: Promise<ExitInfo> | undefined;
  const terminate = (killAfterMs = STOP_TIMEOUT_MS): Promise<ExitInfo> => {
    exitInfo ??= (async () => {
      const begun = performance.now();
      if (!exited(started)) {
        started.kill('SIGTERM');
        if (!(await waitForExit(started, killAfterMs))) {
          started.kill('SIGKILL');
          await waitForExit(started, STOP_TIMEOUT_MS);
        }
      }
      return { code: started.exitCode, signal: started.signalCode, millis: performance.now() - begun };
    })();
    return exitInfo;
  };

  return {
    url: `ldap://127.0.0.1:${port}`,
    port,
    ...(ldapsPort !== undefined && { ldapsPort }),
    adminDn: ADMIN_DN,
    adminPasswordFile,
    adminPassword,
    dataDir,
    dir,
    logs: () => (partial === '' ? [...lines] : [...lines, partial]),
    stderr: () => errors,
    process: started,
    terminate,
    async stop() {
      await terminate();
      cancelOnExit(cleanup);
      if (owned) await rm(dir, { recursive: true, force: true });
    },
  };
}

interface ListeningPorts {
  readonly port: number;
  readonly ldapsPort?: number;
}

function listeningPorts(line: string): ListeningPorts | undefined {
  if (!line.includes('leveldap is listening')) return undefined;
  try {
    const record = JSON.parse(line) as { msg?: unknown; port?: unknown; ldapsPort?: unknown };
    if (record.msg !== 'leveldap is listening' || typeof record.port !== 'number') return undefined;
    return typeof record.ldapsPort === 'number' ? { port: record.port, ldapsPort: record.ldapsPort } : { port: record.port };
  } catch {
    return undefined;
  }
}

/** The resident set size of a process in bytes (VmRSS of /proc/<pid>/status; Linux only). */
export function serverMemory(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
