/**
 * Runs a real OpenLDAP slapd for benchmarks (bench-schemes --compare-slapd) and tests: a throwaway directory with an old-style
 * slapd.conf and an mdb database, loaded with slapadd, served on a free port of 127.0.0.1.
 * Every instance is killed and its directory removed when the process exits, so a failed test
 * cannot leave a slapd behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { collect, run } from './run.js';
import { cancelOnExit, onExit } from './exit-cleanup.js';
import { errorMessage } from '../errors.js';

export interface SlapdOptions {
  readonly suffix?: string;
  readonly rootDn?: string;
  /** Written in clear to slapd.conf; a random one by default. */
  readonly rootPassword?: string;
  /** Modules loaded from /usr/lib/ldap besides back_mdb. */
  readonly modules?: readonly string[];
  /** Schema files included from /etc/ldap/schema, without '.schema'; core, cosine and inetorgperson by default. */
  readonly schemas?: readonly string[];
  /** More lines of the database section, after its directory: overlays (`overlay memberof`), `index` lines. */
  readonly databaseLines?: readonly string[];
  /** slapd.conf's `threads` (the worker pool); slapd's default (16) when not given. */
  readonly threads?: number;
  /** slapd.conf's `loglevel` ("0": nothing syslogged); slapd's default (stats: every operation) when not given. */
  readonly logLevel?: string;
  /** The mdb map size in bytes (`maxsize`, address space only; the database cannot grow past it); 1 GiB by default. */
  readonly maxSize?: number;
}

export interface Slapd {
  readonly dir: string;
  readonly configFile: string;
  readonly suffix: string;
  readonly rootDn: string;
  readonly rootPassword: string;
  /** ldap://127.0.0.1:PORT/; only once started. */
  readonly url: string;
  readonly port: number;
  /** Loads LDIF into the database (before start). Rejects with slapadd's stderr. */
  slapadd(ldif: string): Promise<void>;
  /** The same from an LDIF file (`slapadd -l`: a file too large to hold as one string). */
  slapaddFile(file: string): Promise<void>;
  /** Serves on a free port and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops slapd and removes its directory. Safe to call more than once. */
  stop(): Promise<void>;
}

const MODULE_PATH = '/usr/lib/ldap';
const SCHEMA_DIR = '/etc/ldap/schema';
const DEFAULT_SCHEMAS = ['core', 'cosine', 'inetorgperson'];
const MAX_SIZE = 1024 * 1024 * 1024;
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** The full path of a program on PATH or in /usr/sbin (where slapd lives, often off PATH). */
export function findProgram(name: string): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin'];
  return dirs.filter(Boolean).map((dir) => join(dir, name)).find((path) => existsSync(path));
}

export function requireProgram(name: string): string {
  const path = findProgram(name);
  if (!path) throw new Error(`${name} not found on PATH or in /usr/sbin`);
  return path;
}

export function slapdAvailable(): boolean {
  return ['slapd', 'slapadd', 'ldapwhoami'].every((name) => findProgram(name) !== undefined);
}

/** A config value in double quotes, as slapd.conf reads them. */
function quote(value: string): string {
  if (/[\r\n\0]/.test(value)) throw new Error(`slapd.conf value may not contain a line break: ${JSON.stringify(value)}`);
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

interface ConfSettings {
  readonly modules: readonly string[];
  readonly schemas: readonly string[];
  readonly databaseLines: readonly string[];
  readonly threads?: number;
  readonly logLevel?: string;
  readonly maxSize: number;
}

function slapdConf(dir: string, suffix: string, rootDn: string, rootPassword: string, settings: ConfSettings): string {
  const { modules, schemas, databaseLines, threads, logLevel, maxSize } = settings;
  if (!(Number.isSafeInteger(maxSize) && maxSize > 0)) throw new Error(`slapd maxsize must be a whole number of bytes, not ${maxSize}`);
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 2)) throw new Error(`slapd threads must be a whole number of at least 2, not ${threads}`);
  if (logLevel !== undefined && !/^[A-Za-z0-9 ]+$/.test(logLevel)) throw new Error(`not a slapd loglevel: ${JSON.stringify(logLevel)}`);
  return [
    ...schemas.map((schema) => `include ${quote(join(SCHEMA_DIR, `${schema}.schema`))}`),
    `pidfile ${quote(join(dir, 'slapd.pid'))}`,
    `argsfile ${quote(join(dir, 'slapd.args'))}`,
    `modulepath ${quote(MODULE_PATH)}`,
    ...['back_mdb', ...modules].map((module) => `moduleload ${quote(module)}`),
    ...(threads !== undefined ? [`threads ${threads}`] : []),
    ...(logLevel !== undefined ? [`loglevel ${logLevel}`] : []),
    'database mdb',
    `maxsize ${maxSize}`,
    `suffix ${quote(suffix)}`,
    `rootdn ${quote(rootDn)}`,
    `rootpw ${quote(rootPassword)}`,
    `directory ${quote(join(dir, 'db'))}`,
    ...databaseLines,
    '',
  ].join('\n');
}


/** A port nobody listens on right now, from the kernel's ephemeral range. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Does something accept TCP connections on 127.0.0.1:port? */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const serverUrl = (port: number) => `ldap://127.0.0.1:${port}/`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the child exits (at once if it already has), or false after `ms`. */
function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return; // never spawned
  child.kill('SIGTERM');
  if (await waitForExit(child, STOP_TIMEOUT_MS)) return;
  child.kill('SIGKILL');
  await waitForExit(child, STOP_TIMEOUT_MS);
}

export async function createSlapd(options: SlapdOptions = {}): Promise<Slapd> {
  const suffix = options.suffix ?? 'dc=example,dc=com';
  const rootDn = options.rootDn ?? 'cn=admin,dc=example,dc=com';
  const rootPassword = options.rootPassword ?? randomBytes(16).toString('hex');
  const modules = options.modules ?? ['pw-sha2.so', 'pw-pbkdf2.so'];
  const schemas = options.schemas ?? DEFAULT_SCHEMAS;
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-slapd-'));
  const configFile = join(dir, 'slapd.conf');
  await mkdir(join(dir, 'db'));
  const conf = slapdConf(dir, suffix, rootDn, rootPassword, {
    modules, schemas, databaseLines: options.databaseLines ?? [], threads: options.threads, logLevel: options.logLevel,
    maxSize: options.maxSize ?? MAX_SIZE,
  });
  await writeFile(configFile, conf, { mode: 0o600 });

  let child: ChildProcess | undefined;
  let port = 0;
  const cleanup = () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  onExit(cleanup);

  async function slapaddWith(args: readonly string[], ldif?: string): Promise<void> {
    const result = await run(requireProgram('slapadd'), ['-q', '-f', configFile, ...args], ldif);
    if (result.code !== 0) throw new Error(`slapadd exited with ${result.code}: ${result.stderr.trim()}`);
  }
  const slapadd = (ldif: string) => slapaddWith([], ldif);
  const slapaddFile = (file: string) => slapaddWith(['-l', file]);

  async function start(): Promise<void> {
    if (child) throw new Error('slapd is already started');
    port = await freePort();
    const url = serverUrl(port);
    // -d keeps slapd in the foreground; "none" (unlike 0) still prints startup errors to stderr.
    const started = spawn(requireProgram('slapd'), ['-d', 'none', '-f', configFile, '-h', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    const output = collect(started.stderr);
    started.stdout?.resume();
    let spawnError: Error | undefined;
    started.once('error', (error) => (spawnError = error));
    try {
      await waitUntilServing(started, port, () => spawnError);
    } catch (error) {
      await stopProcess(started);
      child = undefined;
      port = 0;
      const stderr = output().trim();
      throw new Error(`slapd did not start on ${url}: ${errorMessage(error)}${stderr ? `\nslapd stderr:\n${stderr}` : ''}`);
    }
  }

  async function stop(): Promise<void> {
    if (child) await stopProcess(child);
    cancelOnExit(cleanup);
    await rm(dir, { recursive: true, force: true });
  }

  function startedPort(): number {
    if (!port) throw new Error('slapd is not started');
    return port;
  }

  return {
    dir, configFile, suffix, rootDn, rootPassword, slapadd, slapaddFile, start, stop,
    get port() {
      return startedPort();
    },
    get url() {
      return serverUrl(startedPort());
    },
  };
}

/** Polls the port until it accepts a connection; throws if slapd exits, fails to spawn or takes too long. */
async function waitUntilServing(child: ChildProcess, port: number, spawnError: () => Error | undefined): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const failure = spawnError();
    if (failure) throw failure;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`slapd exited with ${child.exitCode ?? child.signalCode}`);
    }
    if (await canConnect(port)) return;
    await sleep(25);
  }
  throw new Error(`no connection after ${START_TIMEOUT_MS} ms`);
}
