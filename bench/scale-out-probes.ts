/**
 * What bench-scale-out measures besides load, on the nodes of a PostgreSQL store:
 *
 * - visibility: a modify of one user's description through node A (a value used once), while
 *   node B is searched for that value in a tight loop (one base search outstanding at a time,
 *   started with the modify); the time from sending the modify until B returns the entry, and the
 *   modify's own response time on A (which includes A's read-your-writes wait).
 * - the read-your-writes wait as node A's /metrics reports it: the histogram
 *   leveldap_postgres_apply_wait_seconds read before and after a load, subtracted, and a quantile
 *   estimated from its buckets: the upper bound of the bucket holding it (the mean is exact:
 *   sum / count), with the node's commit and stale-retry counters over the same load.
 */
import filters from '@ldapjs/filter';
import type { LdapConnection } from '../src/authrate/connection.js';
import type { SearchSpec } from '../src/authrate/wire.js';

/** A visibility probe gives up on a sample after this long. */
const VISIBILITY_TIMEOUT_MS = 10_000;

export interface VisibilitySample {
  /** From sending the modify to node A until node B returns the new value. */
  readonly seenMs: number;
  /** The modify's response time on node A. */
  readonly writeMs: number;
}

/** Searches `reader` for `dn` holding `value` until it does; the time it was found, by performance.now(). */
async function pollUntilSeen(reader: LdapConnection, dn: string, value: string, since: number): Promise<number> {
  const spec: SearchSpec = { base: dn, scope: 0, deref: 0, filter: filters.parseString(`(description=${value})`).toBer().buffer, attributes: ['1.1'] };
  for (;;) {
    const found = await reader.search(spec);
    if (found.code !== 0) throw new Error(`searching ${dn} on node B: result code ${found.code}`);
    if (found.entries === 1) return performance.now();
    if (performance.now() - since > VISIBILITY_TIMEOUT_MS) throw new Error(`${dn}: description=${value} not seen on node B after ${VISIBILITY_TIMEOUT_MS} ms`);
  }
}

/** One sample: a unique description on `dn` through `writer`, polled for through `reader`. */
export async function visibilitySample(writer: LdapConnection, reader: LdapConnection, dn: string, value: string): Promise<VisibilitySample> {
  const sent = performance.now();
  let answered = 0;
  const written = writer.modify(dn, [{ attribute: 'description', values: [value] }]).then((code) => {
    answered = performance.now();
    return code;
  });
  const seen = await pollUntilSeen(reader, dn, value, sent);
  const code = await written;
  if (code !== 0) throw new Error(`modifying ${dn} on node A: result code ${code}`);
  return { seenMs: seen - sent, writeMs: answered - sent };
}

/** The value at `fraction` (0.5: the median) of ascending `sorted` values, nearest rank. */
export function quantile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

/** A Prometheus histogram: cumulative counts per upper bound (seconds; the last Infinity), sum, count. */
export interface Histogram {
  readonly bounds: readonly number[];
  readonly cumulative: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** What node A's /metrics says of its writes. */
export interface WriteMetrics {
  readonly applyWait: Histogram;
  readonly commits: number;
  readonly staleRetries: number;
}

const APPLY_WAIT = 'leveldap_postgres_apply_wait_seconds';

/** The value of an unlabelled sample `name` in Prometheus text, or 0 when absent. */
function sampleValue(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{\\})? (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

export function parseHistogram(text: string, name: string): Histogram {
  const bounds: number[] = [];
  const cumulative: number[] = [];
  for (const match of text.matchAll(new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"\\} (\\S+)$`, 'gm'))) {
    bounds.push(match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]));
    cumulative.push(Number(match[2]));
  }
  if (bounds.length === 0) throw new Error(`no ${name} histogram in the metrics`);
  return { bounds, cumulative, sum: sampleValue(text, `${name}_sum`), count: sampleValue(text, `${name}_count`) };
}

/** Node A's write metrics now, from its metrics endpoint. */
export async function writeMetrics(metricsPort: number): Promise<WriteMetrics> {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (!response.ok) throw new Error(`GET /metrics on port ${metricsPort}: HTTP ${response.status}`);
  const text = await response.text();
  return {
    applyWait: parseHistogram(text, APPLY_WAIT),
    commits: sampleValue(text, 'leveldap_postgres_commits_total'),
    staleRetries: sampleValue(text, 'leveldap_postgres_stale_retries_total'),
  };
}

/** What happened between two readings (`after` minus `before`), or the sum of two such differences. */
export function combine(a: WriteMetrics, b: WriteMetrics, sign: 1 | -1): WriteMetrics {
  const h = (x: Histogram, y: Histogram): Histogram => ({
    bounds: x.bounds, cumulative: x.cumulative.map((value, i) => value + sign * y.cumulative[i]!), sum: x.sum + sign * y.sum, count: x.count + sign * y.count,
  });
  return { applyWait: h(a.applyWait, b.applyWait), commits: a.commits + sign * b.commits, staleRetries: a.staleRetries + sign * b.staleRetries };
}

/** The bucket (seconds: above `lower`, at most `upper`) holding the `fraction` quantile; NaN for an empty histogram. */
export function quantileBucket(histogram: Histogram, fraction: number): { readonly lower: number; readonly upper: number } {
  if (histogram.count === 0) return { lower: Number.NaN, upper: Number.NaN };
  const bucket = histogram.cumulative.findIndex((count) => count >= fraction * histogram.count);
  return { lower: bucket > 0 ? histogram.bounds[bucket - 1]! : 0, upper: histogram.bounds[bucket] ?? Number.POSITIVE_INFINITY };
}
