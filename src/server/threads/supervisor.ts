/**
 * `serve --threads N`: N event loops in worker threads, each serving connections of the same
 * listening sockets on the same database; the main thread only starts them, writes their log
 * lines and stops them. Entry locks and the connection cap live in shared memory; everything
 * else a thread keeps is a cache or per-connection state. Lockout counts failures in one
 * thread's memory, so with lockout on the server keeps one thread (docs/serve.md, "Threads").
 *
 * Each serving thread's young generation is capped (YOUNG_GENERATION_MB): V8's default lets
 * each grow to 32 MiB and more, which with several threads is most of the resident memory;
 * at this size binds/s did not move measurably (docs/performance.md, "Memory").
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { staleTables, SharedSlots, WriteGate } from '../../store/index.js';
import type { ServerConfig } from '../config.js';
import { releaseSocket, reusePortSockets, sharingUnavailable } from '../net/listen-socket.js';
import type { ListeningSockets } from '../net/listener.js';
import type { ListenThread, StopThread, ThreadPlan, ThreadReport, ThreadSetup } from './messages.js';

const ENTRY = new URL('./worker.js', import.meta.url);
const YOUNG_GENERATION_MB = 3;

interface ServingThreads {
  /** Resolves when a thread fails after starting (the server is then short of it: stop it). */
  readonly failure: Promise<Error>;
  /** Stops every thread: no new connections, operations in flight finish, their databases close. */
  stop(graceMillis: number): Promise<void>;
}

/** The owner number a serving thread's entry locks record (SharedSlots); the main thread's comes after them all. */
export const slotOwner = (thread: number): number => thread + 1;
export const mainOwner = (threads: number): number => threads + 1;

/** Why the server will run one thread although more were asked for, or undefined. */
export function singleThreadReason(threads: number, lockout: boolean, postgres = false): string | undefined {
  if (threads <= 1) return undefined;
  if (lockout) return 'lockout (--max-failures) counts failures in one thread';
  if (postgres) return 'a node of a PostgreSQL store (--store) applies and waits for its writes in one thread (docs/scale-out.md)';
  return sharingUnavailable();
}

/** The listening sockets, bound once every thread is prepared: one set per thread. */
interface ReservedSockets {
  readonly perThread: readonly ListeningSockets[];
  readonly host: string;
  readonly port: number;
  readonly ldapsPort?: number;
}

/** Binds the LDAP port, and the LDAPS port when there is one, once for each of `threads` threads (SO_REUSEPORT). */
export async function reserveSockets(config: ServerConfig, threads: number): Promise<ReservedSockets> {
  const ldap = await reusePortSockets(config.host, config.port, threads);
  const ldapsPort = config.tls?.ldapsPort;
  const reserved = { host: ldap.address.address, port: ldap.address.port };
  if (ldapsPort === undefined) return { ...reserved, perThread: ldap.fds.map((fd) => ({ ldap: fd })) };
  try {
    const ldaps = await reusePortSockets(config.host, ldapsPort, threads);
    return { ...reserved, ldapsPort: ldaps.address.port, perThread: ldap.fds.map((fd, i) => ({ ldap: fd, ldaps: ldaps.fds[i]! })) };
  } catch (error) {
    ldap.fds.forEach(releaseSocket);
    throw error;
  }
}

/** A serving thread being started: its worker, prepared once it waits for its sockets, ready once it listens. */
interface StartingThread {
  readonly worker: Worker;
  readonly prepared: Promise<void>;
  readonly ready: Promise<void>;
}

/** One more serving thread: its log lines go to `write`; a failure to start rejects both promises. */
function startThread(setup: ThreadSetup, write: (text: string) => void): StartingThread {
  const worker = new Worker(ENTRY, { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  worker.on('message', (report: ThreadReport) => 'log' in report && write(report.log));
  const failed = new Promise<never>((_, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`serving thread ${setup.thread} exited (${code}) while starting`)));
  });
  const reported = (kind: 'prepared' | 'ready') => {
    const settled = Promise.race([failed, new Promise<void>((resolve) => {
      worker.on('message', (report: ThreadReport) => kind in report && resolve());
    })]);
    settled.catch(() => {}); // a start given up early (the port in use) awaits neither; the thread is then terminated
    return settled;
  };
  return { worker, prepared: reported('prepared'), ready: reported('ready') };
}

/** Resolves when the thread has exited, however it ended (an 'error' is followed by 'exit'). */
const exitOf = (worker: Worker): Promise<void> => new Promise((resolve) => worker.once('exit', () => resolve()));

async function stopThread(worker: Worker, graceMillis: number): Promise<void> {
  const exited = exitOf(worker);
  const message: StopThread = { stop: { graceMillis } };
  worker.postMessage(message);
  await exited;
}

/**
 * Watches the serving threads: one that ends other than by stop() has its entry locks freed at
 * once (so the others' writes go on) and is logged; `failure` resolves with the first such end.
 */
function watch(workers: readonly Worker[], plan: ThreadPlan, log: Logger): { alive: Set<Worker>; failure: Promise<Error>; stopping(): void } {
  const alive = new Set(workers);
  const slots = new SharedSlots(plan.sharedLocks, mainOwner(workers.length));
  const gate = new WriteGate(plan.writeGate, mainOwner(workers.length));
  let stopping = false;
  const failure = new Promise<Error>((resolve) => {
    workers.forEach((worker, thread) => {
      let error: Error | undefined;
      worker.once('error', (thrown) => { error = thrown; });
      worker.once('exit', (code) => {
        alive.delete(worker);
        if (stopping && error === undefined) return;
        const freed = slots.freeOwnedBy(slotOwner(thread));
        const abandonedWrites = gate.abandon(slotOwner(thread));
        if (abandonedWrites > 0) staleTables(plan.tables); // which of them LevelDB has is unknown
        const failed = error ?? new Error(`serving thread ${thread} exited (${code})`);
        log.fatal({ err: failed, thread, freedLocks: freed, abandonedWrites }, 'a serving thread failed');
        resolve(failed);
      });
    });
  });
  return { alive, failure, stopping: () => { stopping = true; } };
}

/**
 * Starts `threads` serving threads at once. Once every one is prepared (its database, schemes and
 * handlers ready), `bind` binds the sockets and thread i listens on perThread[i]: the port accepts
 * connections only when threads are there to take them (a thread that fails to start leaves it
 * closed), and connections made as it opens are spread over every thread's socket.
 */
export async function startThreads<Bound extends { readonly perThread: readonly ListeningSockets[] }>(
  plan: ThreadPlan, threads: number, bind: () => Promise<Bound>, log: Logger, write: (text: string) => void,
): Promise<{ readonly serving: ServingThreads; readonly bound: Bound }> {
  const starting = Array.from({ length: threads }, (_, thread) => startThread({ ...plan, thread, threads }, write));
  const workers = starting.map((thread) => thread.worker);
  let bound: Bound;
  try {
    await Promise.all(starting.map((thread) => thread.prepared));
    bound = await bind();
    starting.forEach((thread, i) => thread.worker.postMessage({ listen: bound.perThread[i]! } satisfies ListenThread));
    await Promise.all(starting.map((thread) => thread.ready));
  } catch (error) {
    // A thread's sockets close with it once it listens on them; a failure before bind() left none open.
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw error;
  }
  const watched = watch(workers, plan, log);
  const serving: ServingThreads = {
    failure: watched.failure,
    async stop(graceMillis) {
      watched.stopping();
      await Promise.all([...watched.alive].map((worker) => stopThread(worker, graceMillis)));
    },
  };
  return { serving, bound };
}
