/**
 * Memory handed back after clients leave. A thread's garbage waits for V8's next full collection,
 * which an idle server never reaches, and what V8 and the sockets freed stays in glibc's malloc
 * arenas, counted in the resident set, until malloc_trim hands the free pages to the kernel. So
 * when connections have closed (a serving thread) or log lines were relayed (the main thread of
 * `serve --threads`), and nothing more for RECLAIM_DELAY_MS, the thread collects its heap fully
 * and trims malloc's arenas (native/sys; without the addon only the collection runs).
 */
import type { Logger } from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { trimMemory } from './native-sys.js';

/** How long after the last connection closed the memory is reclaimed; and at most once in MIN_INTERVAL_MS (a full collection of a serving thread's heap takes 10-30 ms). */
const RECLAIM_DELAY_MS = 1000;
const MIN_INTERVAL_MS = 5000;
/** A server where something is let go every second (a health check) still reclaims, at the latest this long after a burst began. */
const MAX_WAIT_MS = 30_000;
const TRIM_AFTER_COLLECTION_MS = 300;

/**
 * V8's full collection, through the gc function --expose-gc gives a new context of this thread.
 * (Its 'last-resort' flavor, which would also shrink the young generation, left the heap
 * uncollected in some runs here; V8's memory reducer shrinks it within about 30 s anyway.)
 */
function collector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as (() => void) | undefined;
}

export class MemoryReclaimer {
  private timer: NodeJS.Timeout | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  private lastReclaim = -Infinity;
  /** When the first release since the last reclaim happened (undefined: none pending). */
  private burstStart: number | undefined;
  private stopped = false;
  private readonly collect = collector();
  /** Reclaims done (for tests and logs). */
  reclaims = 0;

  constructor(private readonly log: Logger) {}

  /** Memory was let go (a connection closed, log lines were written): reclaim once this stops for RECLAIM_DELAY_MS (at most MAX_WAIT_MS after it began). */
  released(): void {
    if (this.stopped) return;
    const now = performance.now();
    this.burstStart ??= now;
    clearTimeout(this.timer);
    const quiet = Math.max(RECLAIM_DELAY_MS, this.lastReclaim + MIN_INTERVAL_MS - now);
    const delay = Math.min(quiet, Math.max(0, this.burstStart + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => this.reclaim(), delay).unref();
  }

  /**
   * A full collection, then the trim once V8 has freed what the collection released (it frees
   * array buffers' memory on a background thread, after the collection).
   */
  reclaim(): void {
    this.timer = undefined;
    this.burstStart = undefined;
    this.lastReclaim = performance.now();
    const before = process.memoryUsage.rss();
    this.collect?.();
    clearTimeout(this.trimTimer);
    this.trimTimer = setTimeout(() => {
      const trimmed = trimMemory();
      this.reclaims += 1;
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      this.log.debug({ rssBeforeMb: mb(before), rssAfterMb: mb(process.memoryUsage.rss()), trimmed }, 'memory reclaimed');
    }, TRIM_AFTER_COLLECTION_MS).unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.trimTimer);
  }
}
