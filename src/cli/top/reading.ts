/**
 * One reading of a server's cn=Monitor for `leveldap top`: the entries a subtree search returned
 * (`*` and `+`), turned into the numbers top shows. Only names documented in docs/monitoring.md
 * are read, so top works against any leveldap with cn=Monitor.
 */
import type { ClientEntry } from '../../protocol/index.js';

/** Binds of one scheme, one result: the count, the seconds summed, and the cumulative histogram (bound, count). */
export interface BindSeries {
  readonly count: number;
  readonly seconds: number;
  readonly buckets: readonly (readonly [number, number])[];
}

export interface Reading {
  /** Milliseconds (performance.now()) when it was taken. */
  readonly at: number;
  readonly operations: ReadonlyMap<string, { readonly initiated: number; readonly completed: number }>;
  /** By scheme, then result (success, invalid, other). */
  readonly binds: ReadonlyMap<string, ReadonlyMap<string, BindSeries>>;
  readonly connections: { readonly current: number; readonly total: number; readonly refused: number };
  readonly hashing: { readonly waiting: number; readonly running: number };
  readonly cache: { readonly hits: number; readonly misses: number };
  readonly threads: number;
  readonly uptime: number;
}

const first = (entry: ClientEntry | undefined, name: string): string | undefined => {
  if (!entry) return undefined;
  for (const [key, values] of entry.attributes) if (key.toLowerCase() === name.toLowerCase()) return values[0];
  return undefined;
};
const all = (entry: ClientEntry, name: string): readonly string[] =>
  [...entry.attributes].find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1] ?? [];
const numberOf = (entry: ClientEntry | undefined, name: string): number => Number(first(entry, name) ?? 0);

const rdnOf = (dn: string): string => dn.slice(dn.indexOf('=') + 1, dn.indexOf(','));
const parentOf = (dn: string): string => dn.slice(dn.indexOf(',') + 1).toLowerCase();

/** The bind series of one cn=SCHEME,cn=Binds entry, from its monitoredInfo values. */
function bindSeries(entry: ClientEntry): Map<string, BindSeries> {
  const series = new Map<string, { count: number; seconds: number; buckets: [number, number][] }>();
  const of = (result: string) => {
    let found = series.get(result);
    if (!found) series.set(result, (found = { count: 0, seconds: 0, buckets: [] }));
    return found;
  };
  for (const value of all(entry, 'monitoredInfo')) {
    const bucket = /^(\w+) le=(\S+) count=(\d+)$/.exec(value);
    const seconds = /^(\w+) seconds=(\S+)$/.exec(value);
    const count = /^(\w+)=(\d+)$/.exec(value);
    if (bucket) of(bucket[1]!).buckets.push([Number(bucket[2]), Number(bucket[3])]);
    else if (seconds) of(seconds[1]!).seconds = Number(seconds[2]);
    else if (count) of(count[1]!).count = Number(count[2]);
  }
  return series;
}

export function readingOf(entries: readonly ClientEntry[], at: number): Reading {
  const byDn = new Map(entries.map((entry) => [entry.dn.toLowerCase(), entry]));
  const get = (dn: string) => byDn.get(dn.toLowerCase());
  const children = (parent: string) => entries.filter((entry) => parentOf(entry.dn) === parent.toLowerCase());
  const counter = (dn: string) => numberOf(get(dn), 'monitorCounter');
  return {
    at,
    operations: new Map(children('cn=Operations,cn=Monitor').map((entry) => [
      rdnOf(entry.dn), { initiated: numberOf(entry, 'monitorOpInitiated'), completed: numberOf(entry, 'monitorOpCompleted') },
    ])),
    binds: new Map(children('cn=Binds,cn=Monitor').map((entry) => [rdnOf(entry.dn), bindSeries(entry)])),
    connections: {
      current: counter('cn=Current,cn=Connections,cn=Monitor'), total: counter('cn=Total,cn=Connections,cn=Monitor'),
      refused: counter('cn=Refused,cn=Connections,cn=Monitor'),
    },
    hashing: { waiting: counter('cn=Waiting,cn=Hashing,cn=Monitor'), running: counter('cn=Running,cn=Hashing,cn=Monitor') },
    cache: { hits: counter('cn=Hits,cn=Bind Cache,cn=Monitor'), misses: counter('cn=Misses,cn=Bind Cache,cn=Monitor') },
    threads: Number(first(get('cn=Max,cn=Threads,cn=Monitor'), 'monitoredInfo') ?? 0),
    uptime: Number(first(get('cn=Uptime,cn=Time,cn=Monitor'), 'monitoredInfo') ?? 0),
  };
}
