/**
 * What `leveldap top` shows, from two readings of cn=Monitor: operations and binds per second
 * over the interval, bind latency quantiles per scheme (from the histogram's counts in the
 * interval, interpolated within a bucket as Prometheus' histogram_quantile does), connections,
 * the hashing queue, the cache hit rate, failed binds. As data (`--json`) or as text.
 */
import { formatTable } from '../support/table.js';
import type { BindSeries, Reading } from './reading.js';

export interface SchemeView {
  readonly scheme: string;
  readonly bindsPerSecond: number;
  readonly failedPerSecond: number;
  /** Milliseconds; undefined without binds in the interval. */
  readonly p50Ms?: number;
  readonly p99Ms?: number;
}

export interface TopView {
  readonly seconds: number;
  readonly uptime: number;
  readonly threads: number;
  readonly operationsPerSecond: Readonly<Record<string, number>>;
  readonly schemes: readonly SchemeView[];
  readonly connections: Reading['connections'];
  readonly hashing: Reading['hashing'];
  /** Hits over hits and misses in the interval; undefined without either. */
  readonly cacheHitRate?: number;
  readonly failedBindsPerSecond: number;
}

const EMPTY: BindSeries = { count: 0, seconds: 0, buckets: [] };

/** The quantile q of the binds in the interval: counts per bound of `now` less `before`. */
export function quantile(q: number, now: BindSeries, before: BindSeries): number | undefined {
  const counts = now.buckets.map(([bound, count], i) => [bound, count - (before.buckets[i]?.[1] ?? 0)] as const);
  const total = now.count - before.count;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [bound, cumulative] of counts) {
    if (cumulative >= rank) {
      const inBucket = cumulative - below;
      return inBucket <= 0 ? bound : lower + ((bound - lower) * (rank - below)) / inBucket;
    }
    lower = bound;
    below = cumulative;
  }
  return lower; // beyond the last bound: its value, as histogram_quantile answers
}

function schemeView(scheme: string, now: Reading, before: Reading, seconds: number): SchemeView {
  const series = (reading: Reading, result: string) => reading.binds.get(scheme)?.get(result) ?? EMPTY;
  const delta = (result: string) => series(now, result).count - series(before, result).count;
  const p50 = quantile(0.5, series(now, 'success'), series(before, 'success'));
  const p99 = quantile(0.99, series(now, 'success'), series(before, 'success'));
  return {
    scheme, bindsPerSecond: (delta('success') + delta('invalid') + delta('other')) / seconds, failedPerSecond: (delta('invalid') + delta('other')) / seconds,
    ...(p50 !== undefined && { p50Ms: p50 * 1000 }), ...(p99 !== undefined && { p99Ms: p99 * 1000 }),
  };
}

export function viewOf(now: Reading, before: Reading): TopView {
  const seconds = Math.max(0.001, (now.at - before.at) / 1000);
  const operationsPerSecond: Record<string, number> = {};
  for (const [name, { completed }] of now.operations) operationsPerSecond[name] = (completed - (before.operations.get(name)?.completed ?? 0)) / seconds;
  const schemes = [...now.binds.keys()].map((scheme) => schemeView(scheme, now, before, seconds));
  const hits = now.cache.hits - before.cache.hits;
  const misses = now.cache.misses - before.cache.misses;
  return {
    seconds, uptime: now.uptime, threads: now.threads, operationsPerSecond, schemes, connections: now.connections, hashing: now.hashing,
    ...(hits + misses > 0 && { cacheHitRate: hits / (hits + misses) }),
    failedBindsPerSecond: schemes.reduce((sum, scheme) => sum + scheme.failedPerSecond, 0),
  };
}

const fixed = (value: number | undefined, digits = 1): string => (value === undefined ? '-' : value.toFixed(digits));

/** The view as text for the terminal. */
export function renderView(view: TopView, server: string): string {
  const header = `leveldap ${server}  up ${view.uptime} s  threads ${view.threads}  connections ${view.connections.current} (total ${view.connections.total}, refused ${view.connections.refused})`
    + `  hashing: ${view.hashing.running} running, ${view.hashing.waiting} waiting  cache hits ${view.cacheHitRate === undefined ? '-' : `${(view.cacheHitRate * 100).toFixed(0)}%`}`
    + `  failed binds/s ${fixed(view.failedBindsPerSecond)}\n\n`;
  const operations = Object.entries(view.operationsPerSecond).filter(([, rate]) => rate > 0);
  const opsTable = formatTable([['operation', 'per s'], ...operations.map(([name, rate]) => [name, fixed(rate)])], new Set([1]));
  const bindTable = formatTable([
    ['scheme', 'binds/s', 'failed/s', 'p50 ms', 'p99 ms'],
    ...view.schemes.filter((scheme) => scheme.bindsPerSecond > 0).map((scheme) => [scheme.scheme, fixed(scheme.bindsPerSecond), fixed(scheme.failedPerSecond), fixed(scheme.p50Ms, 2), fixed(scheme.p99Ms, 2)]),
  ], new Set([1, 2, 3, 4]));
  return `${header}${operations.length > 0 ? opsTable : 'no operations in the last interval\n'}\n${bindTable}`;
}
