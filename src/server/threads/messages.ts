/** What the main thread of `serve --threads` and the serving threads tell each other. */
import type { RegistryRecipe } from '../../password/index.js';
import type { ContextSeed } from '../build-context.js';
import type { TableMemory } from '../../store/index.js';
import type { Counters } from './counters.js';
import type { ListeningSockets } from '../net/listener.js';

/** What every serving thread is started with (plain data and shared memory). */
export interface ThreadPlan {
  readonly seed: ContextSeed;
  readonly recipe: RegistryRecipe;
  readonly dataDir: string;
  readonly cacheMb?: number;
  /** The entry cache's size the main thread decided (DirectoryStore.entryCacheBytes): every thread's. */
  readonly entryCacheBytes: number;
  readonly logLevel: string;
  /** SharedSlots' buffer: entry locks over all threads. */
  readonly sharedLocks: SharedArrayBuffer;
  /** WriteGate's buffer: a failed write suspends the writes of every thread. */
  readonly writeGate: SharedArrayBuffer;
  /** The shared tables' buffers (shared-table.ts), each if kept: every thread's binds and searches read and fill them. */
  readonly tables: TableMemory;
  /** Counts shared by every thread (counters.ts). */
  readonly counters: Counters;
  /** Connections per client address over every thread (AddressCounts' table). */
  readonly addressCounts: SharedArrayBuffer;
}

/** workerData of one serving thread. */
export interface ThreadSetup extends ThreadPlan {
  readonly thread: number;
  readonly threads: number;
}

/**
 * From a serving thread: log lines (relayed to the main thread's log); prepared (its database,
 * schemes and handlers ready: it waits for its sockets); ready (listening); stopped.
 */
export type ThreadReport = { readonly log: string } | { readonly prepared: true } | { readonly ready: true } | { readonly stopped: true };

/** To a prepared serving thread: its own listening sockets (bound with SO_REUSEPORT, as every thread's). */
export interface ListenThread {
  readonly listen: ListeningSockets;
}

/** To a serving thread. */
export interface StopThread {
  readonly stop: { readonly graceMillis: number };
}
