/**
 * A ServerContext from its parts. Every thread of `serve --threads` builds its own with this,
 * from the same seed (plain data the first thread worked out at start) over its own handle of
 * the same database.
 */
import type { Logger } from 'pino';
import type { SchemeRegistry } from '../password/index.js';
import type { PasswordPolicy } from '../policy/index.js';
import { currentSchema, subschemaEntry, type DirectoryStore } from '../store/index.js';
import { BindDecoys, type DecoyAccount } from '../policy/bind-decoys.js';
import { BindNames } from './bind-names.js';
import type { ServerConfig } from './config.js';
import type { ServerContext } from './context.js';
import { COUNTER, type Counters } from './threads/counters.js';
import { createPolicyRuntime } from '../policy/runtime.js';
import { Scheduler } from './threads/scheduler.js';
import { ThreadLoad } from './threads/load.js';
import { ThreadMonitor, type MonitorSeed } from './monitor/thread-monitor.js';
import { SLOT } from './monitor/stats.js';

/** What every thread's context is made of, as plain data (it crosses to worker threads). */
export interface ContextSeed {
  readonly config: ServerConfig;
  /** The policy, its default scheme resolved and checked. */
  readonly settings: PasswordPolicy;
  readonly admin: ServerContext['admin'];
  /** A hash of a random password in the default scheme: the decoy while no account is sampled. */
  readonly dummyHash: string;
  /** Accounts with a userPassword read at start: the decoys (bind-decoys.ts). */
  readonly decoys: readonly DecoyAccount[];
  readonly vendorVersion: string;
  /** The --schema files on top of the built-in schema (every thread installs the same), and when they were loaded. */
  readonly schemaFiles: readonly string[];
  readonly schemaLoaded: string;
  /** Monitoring's shared counters and channel (cn=Monitor, /metrics). */
  readonly monitor: MonitorSeed;
}

/** `thread`: the serving thread's number (0 for a lone server). */
export function buildContext(seed: ContextSeed, store: DirectoryStore, registry: SchemeRegistry, log: Logger, counters: Counters, thread: number): ServerContext {
  const monitor = new ThreadMonitor(seed.monitor, thread, (stats) => {
    stats.set(SLOT.entryCacheHits, store.stats.recordCacheHits);
    stats.set(SLOT.entryCacheMisses, store.stats.recordCacheMisses);
    stats.set(SLOT.entryCacheBytes, store.entryCacheBytes);
    const { passwords, equalities, recordTable } = store;
    if (passwords !== undefined) {
      stats.set(SLOT.passwordTableHits, passwords.stats.hits);
      stats.set(SLOT.passwordTableMisses, passwords.stats.misses);
      if (thread === 0) stats.set(SLOT.passwordTableBytes, passwords.bytesUsed);
    }
    if (equalities !== undefined) {
      stats.set(SLOT.equalityTableHits, equalities.stats.hits);
      stats.set(SLOT.equalityTableMisses, equalities.stats.misses);
      if (thread === 0) stats.set(SLOT.equalityTableBytes, equalities.bytesUsed);
    }
    if (recordTable !== undefined) {
      stats.set(SLOT.recordTableHits, recordTable.stats.hits);
      stats.set(SLOT.recordTableMisses, recordTable.stats.misses);
      if (thread === 0) stats.set(SLOT.recordTableBytes, recordTable.bytesUsed);
    }
  });
  registry.memoryBudget.onWaited = (seconds) => {
    monitor.stats.add(SLOT.hashWaits);
    monitor.stats.add(SLOT.hashWaitSeconds, seconds);
  };
  return {
    store, registry, log, counters, monitor, scheduler: new Scheduler(), load: new ThreadLoad(),
    config: seed.config, vendorVersion: seed.vendorVersion, admin: seed.admin,
    defaultScheme: seed.settings.defaultScheme, bindNames: new BindNames(), subschema: subschemaEntry(currentSchema(), seed.schemaLoaded),
    policy: createPolicyRuntime({
      settings: seed.settings, registry, store, log, admin: seed.admin, decoys: new BindDecoys(seed.decoys, seed.dummyHash, (key) => store.passwordsByKeySync(key)),
      countReencoded: () => Atomics.add(counters, COUNTER.reencoded, 1) + 1,
      countLocked: () => monitor.stats.add(SLOT.lockouts),
    }),
  };
}
