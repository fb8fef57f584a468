/**
 * bench-scale's figures and how they are printed: a Markdown table per run (import, disk, binds
 * in the first interval and after it, RSS, each leveldap / slapd ratio), a table of the bind
 * series (binds/s and p99.9 per interval), and the JSON line. A library for bench/bench-scale.ts,
 * not run by itself.
 */
import type { LoadResult } from './bind-load.js';
import type { ResidentParts } from '../src/harness/process-stats.js';

export type ServerName = 'slapd' | 'leveldap';

/** A bind run against one server: the whole window, its first interval, the rest, every interval. */
export interface BindRun {
  /** Seconds from starting the server to its answering an anonymous bind on each of CONNECTIONS connections. */
  readonly readySeconds: number;
  readonly all: LoadResult;
  readonly first: LoadResult;
  /** Undefined when the window is one interval long. */
  readonly rest: LoadResult | undefined;
  readonly series: readonly LoadResult[];
  /** The server's CPU seconds over the counted window (all its threads). */
  readonly cpuSeconds: number;
  /** Its resident memory right after the run, and the most seen during it (every 500 ms). */
  readonly rss: ResidentParts;
  readonly maxRssBytes: number;
}

export interface ImportFigures {
  /** Wall seconds of `slapadd -q` or `leveldap import-ldif` (process start included, as bench-import times them). */
  readonly seconds: number;
  /** CPU seconds (user + system) of the import process, all its threads. */
  readonly cpuSeconds: number;
  /** leveldap only: the compaction after the load, part of `seconds`. */
  readonly compactionSeconds?: number;
  /** Allocated bytes of the database directory once loaded (du), before the server opens it. */
  readonly diskBytes: number;
}

export interface ServerFigures extends ImportFigures {
  readonly binds: BindRun;
}

export interface SizeResult {
  readonly users: number;
  readonly ldifBytes: number;
  /** The server imported and measured first (they alternate from one size to the next). */
  readonly first: ServerName;
  readonly slapd: ServerFigures;
  readonly leveldap: ServerFigures;
  /** os.loadavg() when this size started and when it ended. */
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
}

export interface Machine {
  readonly cores: number;
  readonly cpu: string;
  readonly memoryMb: number;
  readonly node: string;
  readonly slapd: string;
  readonly loadAverage: readonly number[];
}

export interface Settings {
  readonly seconds: number;
  readonly intervalSeconds: number;
  readonly warmUpSeconds: number;
  readonly connections: number;
  readonly slapdThreads: number;
  readonly serveArgs: readonly string[];
}

const MB = 2 ** 20;
const mb = (bytes: number) => Math.round(bytes / MB);
const ms = (value: number) => value.toFixed(2);
const rate = (r: LoadResult | undefined) => (r ? String(Math.round(r.throughput)) : '-');
const p999 = (r: LoadResult | undefined) => (r ? ms(r.p999Ms) : '-');
const errorsOf = (r: LoadResult) => Object.values(r.errors).reduce((a, b) => a + b, 0);
const ratio = (ours: number | undefined, theirs: number | undefined) =>
  ours === undefined || theirs === undefined || theirs === 0 ? undefined : Number((ours / theirs).toFixed(2));
const cell = (value: number | undefined) => (value === undefined ? '-' : `**${value.toFixed(2)}x**`);

/** leveldap's figure over slapd's, for each figure (under 1 is less: better for times, sizes, latency and memory; worse for binds/s). */
export function ratios(result: SizeResult): Record<string, number | undefined> {
  const { slapd: s, leveldap: l } = result;
  return {
    importSeconds: ratio(l.seconds, s.seconds),
    importCpuSeconds: ratio(l.cpuSeconds, s.cpuSeconds),
    diskBytes: ratio(l.diskBytes, s.diskBytes),
    bindsPerSecond: ratio(l.binds.all.throughput, s.binds.all.throughput),
    bindsPerSecondFirst: ratio(l.binds.first.throughput, s.binds.first.throughput),
    bindsPerSecondRest: ratio(l.binds.rest?.throughput, s.binds.rest?.throughput),
    p999Ms: ratio(l.binds.all.p999Ms, s.binds.all.p999Ms),
    p999MsFirst: ratio(l.binds.first.p999Ms, s.binds.first.p999Ms),
    p999MsRest: ratio(l.binds.rest?.p999Ms, s.binds.rest?.p999Ms),
    rssBytes: ratio(l.binds.rss.total, s.binds.rss.total),
    maxRssBytes: ratio(l.binds.maxRssBytes, s.binds.maxRssBytes),
  };
}

function serverRow(users: number, name: ServerName, f: ServerFigures): string {
  const { binds: b } = f;
  const compaction = f.compactionSeconds === undefined ? '' : ` (compaction ${f.compactionSeconds.toFixed(1)})`;
  return `| ${users} | ${name} | ${f.seconds.toFixed(2)}${compaction} | ${f.cpuSeconds.toFixed(1)} | ${mb(f.diskBytes)} `
    + `| ${rate(b.first)} | ${p999(b.first)} | ${rate(b.rest)} | ${p999(b.rest)} | ${rate(b.all)} | ${p999(b.all)} | ${errorsOf(b.all)} `
    + `| ${mb(b.rss.total)} (${mb(b.rss.anon)} + ${mb(b.rss.file)}) | ${mb(b.maxRssBytes)} | ${b.readySeconds.toFixed(2)} |`;
}

function ratioRow(result: SizeResult): string {
  const r = ratios(result);
  return `| ${result.users} | **leveldap / slapd** | ${cell(r.importSeconds)} | ${cell(r.importCpuSeconds)} | ${cell(r.diskBytes)} `
    + `| ${cell(r.bindsPerSecondFirst)} | ${cell(r.p999MsFirst)} | ${cell(r.bindsPerSecondRest)} | ${cell(r.p999MsRest)} `
    + `| ${cell(r.bindsPerSecond)} | ${cell(r.p999Ms)} | | ${cell(r.rssBytes)} | ${cell(r.maxRssBytes)} | |`;
}

/** The main table: a row per server and size, then the ratio row of that size. */
export function mainTable(results: readonly SizeResult[], settings: Settings): string[] {
  const span = Math.min(settings.intervalSeconds, settings.seconds);
  const first = `first ${span} s`;
  const rest = `after ${span} s`;
  return [
    `| users | server | import s | import CPU s | disk MB | binds/s ${first} | p99.9 ms ${first} | binds/s ${rest} | p99.9 ms ${rest} `
      + '| binds/s all | p99.9 ms all | errors | RSS MB after (anon + file) | RSS MB most seen | start to serving s |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.flatMap((result) => {
      const order: ServerName[] = result.first === 'slapd' ? ['slapd', 'leveldap'] : ['leveldap', 'slapd'];
      return [...order.map((name) => serverRow(result.users, name, result[name])), ratioRow(result)];
    }),
  ];
}

/** The bind series: binds/s and p99.9 ms of each interval, per size and server. */
export function seriesTable(results: readonly SizeResult[], settings: Settings): string[] {
  const count = Math.max(...results.flatMap((r) => [r.slapd.binds.series.length, r.leveldap.binds.series.length]));
  const heads = Array.from({ length: count }, (_, i) => `${i * settings.intervalSeconds}-${Math.min((i + 1) * settings.intervalSeconds, settings.seconds)} s`);
  const row = (users: number, name: string, series: readonly LoadResult[]) =>
    `| ${users} | ${name} | ${heads.map((_, i) => (series[i] ? `${rate(series[i])} (${p999(series[i])})` : '-')).join(' | ')} |`;
  return [
    `| users | server | ${heads.join(' | ')} |`,
    `|---:|---|${heads.map(() => '---:|').join('')}`,
    ...results.flatMap((r) => [
      row(r.users, 'slapd', r.slapd.binds.series),
      row(r.users, 'leveldap', r.leveldap.binds.series),
      `| ${r.users} | **leveldap / slapd** | ${heads.map((_, i) => cell(ratio(r.leveldap.binds.series[i]?.throughput, r.slapd.binds.series[i]?.throughput))).join(' | ')} |`,
    ]),
  ];
}

/** A load result as the JSON line gives it: rounded, no histograms. */
function compact(r: LoadResult): Record<string, unknown> {
  return {
    operations: r.operations, errors: r.errors, seconds: Number(r.seconds.toFixed(2)), bindsPerSecond: Math.round(r.throughput),
    p50Ms: Number(ms(r.p50Ms)), p99Ms: Number(ms(r.p99Ms)), p999Ms: Number(ms(r.p999Ms)), maxMs: Number(ms(r.maxMs)),
  };
}

function serverJson(f: ServerFigures): Record<string, unknown> {
  const { binds: b } = f;
  return {
    importSeconds: Number(f.seconds.toFixed(2)), importCpuSeconds: Number(f.cpuSeconds.toFixed(2)),
    ...(f.compactionSeconds !== undefined && { compactionSeconds: f.compactionSeconds }), diskBytes: f.diskBytes,
    binds: {
      all: compact(b.all), first: compact(b.first), rest: b.rest && compact(b.rest), series: b.series.map(compact),
      readySeconds: Number(b.readySeconds.toFixed(2)), cpuSeconds: Number(b.cpuSeconds.toFixed(2)), rssBytes: b.rss, maxRssBytes: b.maxRssBytes,
    },
  };
}

/** The whole run as one JSON object (printed on one line). */
export function jsonReport(machine: Machine, settings: Settings, results: readonly SizeResult[]): Record<string, unknown> {
  return {
    bench: 'bench-scale', date: new Date().toISOString(), machine, settings,
    sizes: results.map((r) => ({
      users: r.users, ldifBytes: r.ldifBytes, first: r.first, loadBefore: r.loadBefore, loadAfter: r.loadAfter,
      slapd: serverJson(r.slapd), leveldap: serverJson(r.leveldap), ratios: ratios(r),
    })),
  };
}

/** How each figure grows from one size to the next (the issue asks, 10,000 to 100,000 to 1,000,000 users). */
export function growthLines(results: readonly SizeResult[]): string[] {
  const lines: string[] = [];
  for (let i = 1; i < results.length; i += 1) {
    const [a, b] = [results[i - 1]!, results[i]!];
    const grow = (name: ServerName, pick: (f: ServerFigures) => number) => (pick(b[name]) / pick(a[name])).toFixed(2);
    const figures: [string, (f: ServerFigures) => number][] = [
      ['import s', (f) => f.seconds], ['disk', (f) => f.diskBytes], ['binds/s after the first interval', (f) => (f.binds.rest ?? f.binds.all).throughput],
      ['RSS', (f) => f.binds.rss.total],
    ];
    const parts = figures.map(([label, pick]) => `${label} slapd x${grow('slapd', pick)}, leveldap x${grow('leveldap', pick)}`);
    lines.push(`${a.users} -> ${b.users} users (x${(b.users / a.users).toFixed(1)}): ${parts.join('; ')}`);
  }
  return lines;
}
