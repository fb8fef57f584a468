/**
 * The load tools' counters, with OpenDJ StatsThread's meanings: per-interval counts for the "recent"
 * columns, totals since the start (after warm-up) for "average", and one cumulative HDR histogram
 * of response times in microseconds for the percentiles.
 */
import hdr from 'hdr-histogram-js';

/** The largest response time recorded (larger ones are clipped): 120 s in microseconds. */
const HIGHEST_MICROS = 120_000_000;

/** One statistics line. Times in milliseconds, rates per second. */
export interface StatsRow {
  readonly elapsedSeconds: number;
  readonly recentThroughput: number;
  readonly averageThroughput: number;
  readonly recentResponseMs: number;
  readonly averageResponseMs: number;
  /** In the order of the percentiles asked for. */
  readonly percentilesMs: readonly number[];
  readonly errorsPerSecond: number;
  /** Search-then-bind: the share of the interval's response time spent binding (after the search), in percent. */
  readonly bindTimePercent: number;
  /** searchrate: the entries returned per search in the interval (OpenDJ's Entries/Srch). */
  readonly entriesPerSearch: number;
}

/** The run as a whole, for --json. */
export interface StatsSummary {
  readonly seconds: number;
  readonly throughput: number;
  readonly operations: number;
  readonly errors: number;
  readonly errorsByCode: Readonly<Record<string, number>>;
  /** Entries returned by the searches (searchrate). */
  readonly entries: number;
  readonly averageMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly p9999Ms: number;
  readonly p99999Ms: number;
  readonly maxMs: number;
}

interface Counts {
  operations: number;
  errors: number;
  responseMs: number;
  searchMs: number;
  entries: number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const zero = (): Counts => ({ operations: 0, errors: 0, responseMs: 0, searchMs: 0, entries: 0 });

export class Stats {
  readonly #histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_MICROS, numberOfSignificantValueDigits: 3 });
  #total = zero();
  #interval = zero();
  #errorsByCode: Record<string, number> = {};
  #startedAt: number;
  #intervalStartedAt: number;

  constructor(now: number = performance.now()) {
    this.#startedAt = now;
    this.#intervalStartedAt = now;
  }

  get operations(): number {
    return this.#total.operations;
  }

  /**
   * One finished operation: its response time, LDAP result code (0 = success), in search-then-bind
   * its search's time, and the entries its search returned.
   */
  record(responseMs: number, code: number, searchMs = 0, entries = 0): void {
    for (const counts of [this.#total, this.#interval]) {
      counts.operations += 1;
      counts.responseMs += responseMs;
      counts.searchMs += searchMs;
      counts.entries += entries;
      if (code !== 0) counts.errors += 1;
    }
    if (code !== 0) this.#errorsByCode[code] = (this.#errorsByCode[code] ?? 0) + 1;
    const micros = Math.min(HIGHEST_MICROS, Math.max(1, Math.round(responseMs * 1000)));
    this.#histogram.recordValue(micros);
  }

  /** Forgets everything (the end of the warm-up). */
  reset(now: number = performance.now()): void {
    this.#histogram.reset();
    this.#total = zero();
    this.#interval = zero();
    this.#errorsByCode = {};
    this.#startedAt = now;
    this.#intervalStartedAt = now;
  }

  #percentileMs(percentile: number): number {
    return this.#total.operations === 0 ? 0 : this.#histogram.getValueAtPercentile(percentile) / 1000;
  }

  /** The line for the interval ending now; the next interval starts. */
  row(percentiles: readonly number[], now: number = performance.now()): StatsRow {
    const intervalSeconds = (now - this.#intervalStartedAt) / 1000;
    const totalSeconds = (now - this.#startedAt) / 1000;
    const recent = this.#interval;
    const row: StatsRow = {
      elapsedSeconds: totalSeconds,
      recentThroughput: rate(recent.operations, intervalSeconds),
      averageThroughput: rate(this.#total.operations, totalSeconds),
      recentResponseMs: mean(recent.responseMs, recent.operations),
      averageResponseMs: mean(this.#total.responseMs, this.#total.operations),
      percentilesMs: percentiles.map((p) => this.#percentileMs(p)),
      errorsPerSecond: rate(recent.errors, intervalSeconds),
      bindTimePercent: recent.responseMs > 0 ? (100 * (recent.responseMs - recent.searchMs)) / recent.responseMs : 0,
      entriesPerSearch: mean(recent.entries, recent.operations),
    };
    this.#interval = zero();
    this.#intervalStartedAt = now;
    return row;
  }

  summary(now: number = performance.now()): StatsSummary {
    const seconds = (now - this.#startedAt) / 1000;
    return {
      seconds,
      throughput: rate(this.#total.operations, seconds),
      operations: this.#total.operations,
      errors: this.#total.errors,
      errorsByCode: { ...this.#errorsByCode },
      entries: this.#total.entries,
      averageMs: mean(this.#total.responseMs, this.#total.operations),
      p50Ms: this.#percentileMs(50),
      p99Ms: this.#percentileMs(99),
      p999Ms: this.#percentileMs(99.9),
      p9999Ms: this.#percentileMs(99.99),
      p99999Ms: this.#percentileMs(99.999),
      maxMs: this.#total.operations === 0 ? 0 : this.#histogram.maxValue / 1000,
    };
  }
}

function rate(count: number, seconds: number): number {
  return seconds > 0 ? count / seconds : 0;
}

function mean(sum: number, count: number): number {
  return count > 0 ? sum / count : 0;
}
