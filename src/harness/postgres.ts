/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temporary directory,
 * run as the `postgres` user (initdb and postgres refuse root), listening on a Unix socket only,
 * with logical decoding on (the scale-out store streams from it, docs/scale-out.md). Debian's
 * binaries live in /usr/lib/postgresql/<major>/bin, not on PATH.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancelOnExit, onExit } from './exit-cleanup.js';
import { run } from './run.js';

const POSTGRES_USER = 'postgres';

export interface PostgresCluster {
  /** A libpq-style URL naming the socket directory (`postgres://postgres@/leveldap?host=DIR`). */
  readonly url: string;
  readonly socketDir: string;
  readonly dataDir: string;
  /** Starts the cluster again after stop. */
  start(): Promise<void>;
  /** pg_ctl stop: `immediate` is a crash (no checkpoint), as a power cut leaves it. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Runs SQL through psql as the superuser; resolves with its output (unaligned, tuples only). */
  sql(statement: string): Promise<string>;
  /** Stops the cluster and removes its directory. */
  destroy(): Promise<void>;
}

/** The directory holding initdb, pg_ctl and postgres (the newest major installed), or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  const found = majors.map((major) => join(root, major, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  return found;
}

/** Why a cluster cannot be started here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  if (postgresBinDir() === undefined) return 'PostgreSQL is not installed (Debian: apt-get install postgresql)';
  try {
    execFileSync('id', ['-u', POSTGRES_USER], { stdio: 'ignore' });
  } catch {
    return `there is no ${POSTGRES_USER} user to run PostgreSQL as`;
  }
  return undefined;
}

async function asPostgres(program: string, args: readonly string[]): Promise<string> {
  const result = await run('runuser', ['-u', POSTGRES_USER, '--', program, ...args]);
  if (result.code !== 0) throw new Error(`${program} ${args.join(' ')} failed (${result.code}): ${result.stderr || result.stdout}`);
  return result.stdout;
}

/** Server settings: the socket only, logical decoding, room for many nodes' slots, quiet logs. */
function serverOptions(socketDir: string): string {
  return [
    "-c listen_addresses=''", `-c unix_socket_directories=${socketDir}`, '-c wal_level=logical',
    '-c max_replication_slots=32', '-c max_wal_senders=32', '-c max_connections=200',
    '-c logging_collector=off', '-c log_min_messages=warning', '-c shared_buffers=64MB',
  ].join(' ');
}

/** Creates and starts a cluster with a database named `database` (default leveldap). */
export async function startPostgres(options: { database?: string } = {}): Promise<PostgresCluster> {
  const reason = postgresUnavailable();
  if (reason) throw new Error(reason);
  const bin = postgresBinDir()!;
  const root = mkdtempSync(join(tmpdir(), 'leveldap-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = root;
  const uid = Number(execFileSync('id', ['-u', POSTGRES_USER]).toString());
  const gid = Number(execFileSync('id', ['-g', POSTGRES_USER]).toString());
  chownSync(root, uid, gid);
  const database = options.database ?? 'leveldap';
  const pgCtl = join(bin, 'pg_ctl');
  const logFile = join(root, 'server.log');
  const start = async (): Promise<void> => {
    await asPostgres(pgCtl, ['start', '-w', '-t', '60', '-D', dataDir, '-l', logFile, '-o', serverOptions(socketDir)]);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    await asPostgres(pgCtl, ['stop', '-w', '-t', '60', '-D', dataDir, '-m', mode]);
  };
  const cleanup = (): void => {
    try {
      execFileSync('runuser', ['-u', POSTGRES_USER, '--', pgCtl, 'stop', '-D', dataDir, '-m', 'immediate'], { stdio: 'ignore' });
    } catch {
      // not running
    }
    rmSync(root, { recursive: true, force: true });
  };
  onExit(cleanup);
  await asPostgres(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', POSTGRES_USER, '-E', 'UTF8', '--no-sync']);
  await start();
  const psql = async (db: string, statement: string): Promise<string> =>
    asPostgres(join(bin, 'psql'), ['-h', socketDir, '-U', POSTGRES_USER, '-d', db, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', statement]);
  await psql('postgres', `CREATE DATABASE ${database}`);
  return {
    url: `postgres://${POSTGRES_USER}@/${database}?host=${encodeURIComponent(socketDir)}`,
    socketDir,
    dataDir,
    start,
    stop,
    sql: (statement) => psql(database, statement),
    destroy: async () => {
      cancelOnExit(cleanup);
      cleanup();
    },
  };
}
