/**
 * bench-scale-out's results and how they are printed: the setups' labels, the result shapes,
 * a Markdown table per part (store loads, binds, modifies), the targets met or not, and the JSON
 * line. A library for bench/bench-scale-out.ts, not run by itself.
 */
import type { AddLoad } from './ldif-over-ldap.js';
import { quantile, quantileBucket, type WriteMetrics } from './scale-out-probes.js';

export const LEVELDB_1 = 'LevelDB-only, 1 thread';
export const LEVELDB_2 = 'LevelDB-only, 2 threads';
export const NODE = 'PostgreSQL node A, 1 thread';
export const TWO_NODES = 'PostgreSQL nodes A+B, 1 thread each';
export const NODE_ALONE = 'PostgreSQL node A, 1 thread, node B stopped';

/** A load run's outcome: throughput, latency, errors and (binds) the servers' CPU seconds over the counted window. */
export interface Measured {
  readonly throughput: number;
  readonly operations: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpu: number;
}

/** A setup's best run of the rounds, and the throughput of every run. */
export interface Best {
  readonly best: Measured;
  readonly runs: number[];
}

export interface StoreLoad {
  readonly load: AddLoad;
  readonly nodeAStartSeconds: number;
  readonly nodeBCopySeconds: number;
  readonly nodeBEntries: number;
}

export interface SchemeResult {
  readonly scheme: string;
  readonly store: StoreLoad;
  readonly binds: ReadonlyMap<string, Best>;
}

export interface WriteResult {
  readonly visibility: { readonly seenMs: readonly number[]; readonly writeMs: readonly number[] };
  readonly modifies: ReadonlyMap<string, Best>;
  /** The same again with node B stopped: node A the only node on these cores. */
  readonly modifiesAlone: ReadonlyMap<string, Best>;
  readonly applyWait: WriteMetrics;
}

export interface Machine {
  readonly cores: number;
  readonly cpu: string;
  readonly loadAverageBefore: readonly number[];
  readonly node: string;
  readonly postgres: string;
}

export const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(2) : String(value));
export const ratio = (a: number, b: number): number => (b > 0 ? a / b : Number.NaN);

export function markdown(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

export function bindTable(results: readonly SchemeResult[]): string {
  const rows = results.flatMap(({ scheme, binds }) => [...binds].map(([label, { best, runs }]) => [
    scheme, label, best.throughput.toFixed(0), ms(best.p50Ms), ms(best.p99Ms), String(best.errors),
    best.cpu > 0 ? (best.operations / best.cpu).toFixed(0) : '-', runs.map((run) => run.toFixed(0)).join(' '),
  ]));
  return markdown(['scheme', 'setup', 'binds/s (best)', 'p50 ms', 'p99 ms', 'errors', 'binds per CPU-second', 'every run, binds/s'], rows);
}

export function storeTable(results: readonly SchemeResult[], load: string): string {
  return markdown(['scheme', `entries loaded (${load === 'ldap' ? 'LDAP adds through node A' : 'import-ldif --store'})`, 'seconds', 'entries/s', 'node A start (its copy), s', 'node B start (snapshot copy), s', 'entries on node B'],
    results.map(({ scheme, store }) => [
      scheme, String(store.load.entries), store.load.seconds.toFixed(1), (store.load.entries / store.load.seconds).toFixed(0),
      store.nodeAStartSeconds.toFixed(2), store.nodeBCopySeconds.toFixed(2), String(store.nodeBEntries),
    ]));
}

export function writeTable(w: WriteResult): string {
  const rows = [...w.modifies, ...w.modifiesAlone].map(([label, { best, runs }]) => [
    label, best.throughput.toFixed(0), ms(best.p50Ms), ms(best.p99Ms), String(best.errors), runs.map((run) => run.toFixed(0)).join(' '),
  ]);
  return markdown(['server', 'modifies/s (best)', 'p50 ms', 'p99 ms', 'errors', 'every run, modifies/s'], rows);
}

export interface Target {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly goal: string;
  readonly met: boolean;
}

export function bindTargets({ scheme, binds }: SchemeResult): Target[] {
  const one = binds.get(LEVELDB_1)!.best;
  const node = binds.get(NODE)!.best;
  const bindRatio = ratio(node.throughput, one.throughput);
  const added = node.p50Ms - one.p50Ms;
  const scaled = ratio(binds.get(TWO_NODES)!.best.throughput, binds.get(LEVELDB_2)!.best.throughput);
  return [
    { name: `${scheme}: binds/s, node / LevelDB-only (1 thread each)`, value: bindRatio, unit: 'x', goal: '>= 0.95x', met: bindRatio >= 0.95 },
    { name: `${scheme}: p50 added by the node`, value: added, unit: 'ms', goal: '<= 0.05 ms', met: added <= 0.05 },
    { name: `${scheme}: binds/s, 2 nodes x 1 thread / LevelDB-only x 2 threads`, value: scaled, unit: 'x', goal: '>= 0.90x', met: scaled >= 0.9 },
  ];
}

export function writeTargets(w: WriteResult): Target[] {
  const visible = quantile(w.visibility.seenMs, 0.99);
  const wait = quantileBucket(w.applyWait.applyWait, 0.99).upper * 1000;
  const modifyRatio = ratio(w.modifies.get(NODE)!.best.throughput, w.modifies.get(LEVELDB_1)!.best.throughput);
  const aloneRatio = ratio(w.modifiesAlone.get(NODE_ALONE)!.best.throughput, w.modifiesAlone.get(LEVELDB_1)!.best.throughput);
  return [
    { name: 'A->B visibility p99', value: visible, unit: 'ms', goal: '<= 50 ms', met: visible <= 50 },
    { name: 'read-your-writes wait p99 (bucket upper bound)', value: wait, unit: 'ms', goal: '<= 10 ms', met: wait <= 10 },
    { name: 'modifies/s, node / LevelDB-only (synced), node B following on the same cores', value: modifyRatio, unit: 'x', goal: '>= 0.5x', met: modifyRatio >= 0.5 },
    { name: 'modifies/s, node / LevelDB-only (synced), node B stopped', value: aloneRatio, unit: 'x', goal: '>= 0.5x', met: aloneRatio >= 0.5 },
  ];
}

export function targetTable(targets: readonly Target[]): string {
  return markdown(['target', 'measured', 'goal', 'met'], targets.map((t) => [t.name, `${t.unit === 'x' ? t.value.toFixed(2) : ms(t.value)} ${t.unit}`, t.goal, t.met ? 'yes' : '**no**']));
}

export function writeLines(w: WriteResult): string[] {
  const { seenMs, writeMs } = w.visibility;
  const h = w.applyWait.applyWait;
  const bound = (fraction: number) => {
    const { lower, upper } = quantileBucket(h, fraction);
    return `in (${ms(lower * 1000)}, ${ms(upper * 1000)}] ms`;
  };
  return [
    `A->B visibility over ${seenMs.length} modifies (from sending the modify to A until B returns it): p50 ${ms(quantile(seenMs, 0.5))} ms, p99 ${ms(quantile(seenMs, 0.99))} ms, max ${ms(seenMs.at(-1) ?? Number.NaN)} ms; the modify's response on A: p50 ${ms(quantile(writeMs, 0.5))} ms, p99 ${ms(quantile(writeMs, 0.99))} ms.`,
    `Read-your-writes wait on node A over its modify runs (leveldap_postgres_apply_wait_seconds from /metrics; bucket-level estimates: the bucket holding the percentile; the target is checked against its upper bound): ${h.count} writes, p50 ${bound(0.5)}, p99 ${bound(0.99)}, mean ${ms(ratio(h.sum, h.count) * 1000)} ms (exact); ${w.applyWait.commits} commits, ${w.applyWait.staleRetries} stale retries.`,
  ];
}

export function json(info: Machine, settings: Readonly<Record<string, number>>, results: readonly SchemeResult[], w: WriteResult | undefined, targets: readonly Target[]): string {
  const bests = (map: ReadonlyMap<string, Best>) => Object.fromEntries([...map].map(([label, best]) => [label, best]));
  return JSON.stringify({
    machine: info, settings,
    schemes: results.map((r) => ({ scheme: r.scheme, store: r.store, binds: bests(r.binds) })),
    ...(w && {
      writes: {
        modifies: bests(w.modifies), modifiesAlone: bests(w.modifiesAlone), applyWait: { ...w.applyWait, p50Bucket: quantileBucket(w.applyWait.applyWait, 0.5), p99Bucket: quantileBucket(w.applyWait.applyWait, 0.99) },
        visibility: { p50Ms: quantile(w.visibility.seenMs, 0.5), p99Ms: quantile(w.visibility.seenMs, 0.99), writeP50Ms: quantile(w.visibility.writeMs, 0.5), writeP99Ms: quantile(w.visibility.writeMs, 0.99) },
      },
    }),
    targets,
  }, (_key, value: unknown) => (value === Number.POSITIVE_INFINITY ? 'Infinity' : value));
}
