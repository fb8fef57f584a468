/**
 * What each serving thread keeps for monitoring: its counters (stats.ts), its open connections
 * (connections.ts), the channel to the other threads (peers.ts), and a sampler that writes
 * the thread's event-loop delay and heap into its slice about once a second.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { ConnectionTable } from './connections.js';
import { MonitorPeers } from './peers.js';
import { SLOT, StatsReader, ThreadStats, statsLayout, type StatsLayout } from './stats.js';
import { EntryCount } from './entry-count.js';

/** Plain data every thread is started with (it crosses to worker threads). */
export interface MonitorSeed {
  readonly stats: SharedArrayBuffer;
  /** The registry's scheme names, in order (the layout's). */
  readonly schemes: readonly string[];
  /** Serving threads. */
  readonly threads: number;
  /** The BroadcastChannel the server's threads share. */
  readonly channel: string;
  /** When the server started, milliseconds since the epoch (cn=Time). */
  readonly startedAt: number;
}

const SAMPLE_MS = 1000;
/** The delay histogram's timer period; what it records beyond this is the loop's delay. */
const RESOLUTION_MS = 20;
const NS = 1e-9;

/** Seconds of delay beyond the timer's period, from a histogram value in nanoseconds. */
const beyond = (nanoseconds: number): number => (Number.isFinite(nanoseconds) ? Math.max(0, nanoseconds * NS - RESOLUTION_MS / 1000) : 0);

/** Writes the event-loop delay of the last interval and the heap in use into the thread's slice, then `sampled` (counts kept elsewhere); `tick` is called with the time. */
function startSampler(stats: ThreadStats, tick: (now: number) => void, sampled: (stats: ThreadStats) => void): () => void {
  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const sample = () => {
    stats.set(SLOT.loopDelayMean, beyond(delay.mean));
    stats.set(SLOT.loopDelayP99, beyond(delay.percentile(99)));
    stats.set(SLOT.loopDelayMax, beyond(delay.max));
    stats.set(SLOT.heapUsedBytes, getHeapStatistics().used_heap_size);
    sampled(stats);
    delay.reset();
    tick(Date.now());
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS).unref();
  return () => {
    clearInterval(timer);
    delay.disable();
  };
}

export class ThreadMonitor {
  readonly layout: StatsLayout;
  readonly stats: ThreadStats;
  /** Totals over every serving thread. */
  readonly reader: StatsReader;
  readonly connections = new ConnectionTable();
  readonly peers: MonitorPeers;
  /** The URLs this thread's listeners are bound to (cn=Listeners). */
  readonly listeners: string[] = [];
  private readonly stopSampler: () => void;
  /** The time (ms since the epoch) to the second, refreshed by the sampler: cheaper than Date.now() per message. */
  coarseNow = Date.now();
  /** The database's entries, counted now and then (cn=Databases). */
  readonly entryCount = new EntryCount();

  /** `sampled` writes what the thread counts outside the slice (its store's entry cache) into it, with each sample. */
  constructor(readonly seed: MonitorSeed, readonly thread: number, sampled: (stats: ThreadStats) => void = () => {}) {
    this.layout = statsLayout(seed.schemes);
    this.stats = new ThreadStats(seed.stats, this.layout, thread);
    this.reader = new StatsReader(seed.stats, this.layout, seed.threads);
    this.peers = new MonitorPeers(seed.channel, thread, seed.threads, { thread, connections: () => this.connections.describe(thread) });
    this.stopSampler = startSampler(this.stats, (now) => { this.coarseNow = now; }, sampled);
  }

  close(): void {
    this.stopSampler();
    this.peers.close();
  }
}
