/**
 * `serve --threads N`: N event loops in worker threads, each serving connections of the same
 * listening sockets on the same database; the main thread only starts them, writes their log
 * lines and stops them. Entry locks and the connection cap live in shared memory; everything
 * else a thread keeps is a cache or per-connection state. Lockout counts failures in one
 * thread's memory, so with lockout on the server keeps one thread (see the README).
 *
 * Each serving thread's young generation is capped (YOUNG_GENERATION_MB): V8's default lets
 * each grow to 32 MiB and more, which with several threads is most of the resident memory;
 * at this size binds/s did not move measurably (docs/performance.md, "Memory").
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';
import { duplicateFd, releaseSocket, reserveSocket, sharingUnavailable } from './listen-socket.js';
import type { ListeningSockets } from './server.js';
import type { StopThread, ThreadPlan, ThreadReport, ThreadSetup } from './thread-messages.js';


const ENTRY = new URL('./thread-worker.js', import.meta.url);
const YOUNG_GENERATION_MB = 3;

export interface ServingThreads {
  /** Resolves when a thread fails after starting (the server is then short of it: stop it). */
  readonly failure: Promise<Error>;
  /** Stops every thread: no new connections, operations in flight finish, their databases close. */
  stop(graceMillis: number): Promise<void>;
}

/** Why the server will run one thread although more were asked for, or undefined. */
export function singleThreadReason(threads: number, lockout: boolean): string | undefined {
  if (threads <= 1) return undefined;
  if (lockout) return 'lockout (--max-failures) counts failures in one thread';
  return sharingUnavailable();
}

/** The listening sockets, bound before any thread accepts on them. */
export interface ReservedSockets {
  readonly sockets: ListeningSockets;
  readonly host: string;
  readonly port: number;
  readonly ldapsPort?: number;
}

/** Binds the LDAP port, and the LDAPS port when there is one, for every thread to accept on. */
export async function reserveSockets(config: ServerConfig): Promise<ReservedSockets> {
  const ldap = await reserveSocket(config.host, config.port);
  const ldapsPort = config.tls?.ldapsPort;
  const reserved = { host: ldap.address.address, port: ldap.address.port };
  if (ldapsPort === undefined) return { ...reserved, sockets: { ldap: ldap.fd } };
  try {
    const ldaps = await reserveSocket(config.host, ldapsPort);
    return { ...reserved, ldapsPort: ldaps.address.port, sockets: { ldap: ldap.fd, ldaps: ldaps.fd } };
  } catch (error) {
    releaseSocket(ldap.fd);
    throw error;
  }
}

export function releaseSockets(sockets: ListeningSockets): void {
  [sockets.ldap, sockets.ldaps].forEach((fd) => fd !== undefined && releaseSocket(fd));
}

function duplicates(sockets: ListeningSockets): ListeningSockets {
  return {
    ...(sockets.ldap !== undefined && { ldap: duplicateFd(sockets.ldap) }),
    ...(sockets.ldaps !== undefined && { ldaps: duplicateFd(sockets.ldaps) }),
  };
}

/** One more serving thread; resolves once it listens. */
async function startThread(setup: ThreadSetup, write: (text: string) => void): Promise<Worker> {
  const worker = new Worker(ENTRY, { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (report: ThreadReport) => {
      if ('log' in report) write(report.log);
      else if ('ready' in report) resolve();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`serving thread ${setup.thread} exited (${code}) while starting`)));
  });
  await ready;
  return worker;
}

async function stopThread(worker: Worker, graceMillis: number): Promise<void> {
  const exited = once(worker, 'exit');
  const message: StopThread = { stop: { graceMillis } };
  worker.postMessage(message);
  await exited;
}

/** Threads still running (a failed one has left). */
function running(workers: readonly Worker[]): Set<Worker> {
  const alive = new Set(workers);
  workers.forEach((worker) => worker.once('exit', () => alive.delete(worker)));
  return alive;
}

/** Starts serving threads 0 .. threads - 1 on duplicates of `sockets`; `write` takes their log lines. */
export async function startThreads(
  plan: ThreadPlan, sockets: ListeningSockets, threads: number, log: Logger, write: (text: string) => void,
): Promise<ServingThreads> {
  const workers: Worker[] = [];
  try {
    for (let thread = 0; thread < threads; thread += 1) {
      workers.push(await startThread({ ...plan, sockets: duplicates(sockets), thread, threads }, write));
    }
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw error;
  }
  let stopping = false;
  const alive = running(workers);
  const failure = new Promise<Error>((resolve) => {
    for (const worker of workers) {
      worker.once('error', (error) => resolve(error));
      worker.once('exit', (code) => { if (!stopping) resolve(new Error(`a serving thread exited (${code})`)); });
    }
  });
  void failure.then((error) => log.fatal({ err: error }, 'a serving thread failed'));
  return {
    failure,
    async stop(graceMillis) {
      stopping = true;
      await Promise.all([...alive].map((worker) => stopThread(worker, graceMillis)));
    },
  };
}
