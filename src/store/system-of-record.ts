/**
 * What the store asks of a system of record it is the local copy of (the PostgreSQL store,
 * postgres/record.ts), and the counters that monitoring shows of it.
 */
import type { BatchOp } from './batch-ops.js';
import type { HeldLocks } from './mutex.js';

/**
 * Where writes are committed when the database is a node's local copy of another store (the
 * PostgreSQL system of record, postgres/): a write's batch goes there instead of to LevelDB, and
 * resolves once the local copy holds it. `holding` is what the write holds (its locks, and the
 * `clock` when it took them); StaleCopy when the local copy it read was behind.
 */
export interface SystemOfRecord {
  /** Runs a write's critical section, its entry locks taken (KeyedMutex.inside): the record may lock the same entries first. */
  around<T>(keys: readonly string[], critical: () => Promise<T>, held: HeldLocks): Promise<T>;
  commit(ops: readonly BatchOp[], held: HeldLocks | undefined): Promise<void>;
  /** Resolves once the local copy holds every write committed before the call. */
  catchUp(): Promise<void>;
  /** A number that grows whenever the local copy changes (KeyedMutex's clock). */
  readonly clock: number;
  /** Why reads of the local copy are refused now (too stale), or undefined. */
  staleReason(): string | undefined;
  /** Failed binds as every node sees them (lockout), when the system of record shares them. */
  readonly failures?: SharedFailures;
  /** What monitoring shows of it (the store counts the writes it runs again). */
  stats(): Omit<RecordStats, 'staleRetries'>;
}

/** Upper bounds (seconds) of the buckets of RecordStats.applyWait: fine around the 10 ms that read-your-writes aims at (issue 19). */
export const APPLY_WAIT_BUCKETS = [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.05, 0.1, 0.5, 1, 5] as const;

/** A system of record's counters since start. */
export interface RecordStats {
  /** Writes committed. */
  readonly commits: number;
  /** Transactions the writes at once went in (writes arriving together share one: postgres/commit-batch.ts). */
  readonly transactions: number;
  /** Writes run again because the local copy was behind (StaleCopy). */
  readonly staleRetries: number;
  /** Writes that locked their entries in the system of record before running, the entries being contended (postgres/record.ts). */
  readonly lockedFirst: number;
  /** How long committed writes waited for the local copy to apply them: per bucket (APPLY_WAIT_BUCKETS, then +Inf), sum in seconds, count. */
  readonly applyWait: { readonly buckets: readonly number[]; readonly sum: number; readonly count: number };
  /** Seconds since the system of record last answered the local copy's stream. */
  readonly silentSeconds: number;
}

/** Failed binds recorded where every node of a store counts them (lockout.ts; postgres/failures.ts). */
export interface SharedFailures {
  /** Records a failure of the account at `at` (ms); resolves with the other nodes' failures after `since` (ms). */
  failed(account: string, at: number, since: number): Promise<number[]>;
  /** Forgets the account's failures, after a success (in the background). */
  cleared(account: string): void;
}
