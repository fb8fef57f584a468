/**
 * The Prometheus metrics, through prom-client's registry and text format: each leveldap metric
 * is read at scrape time from the counters every serving thread keeps in shared memory
 * (../monitor/stats.ts), so scraping costs the serving threads nothing. prom-client's default
 * process and Node metrics come along, less those `promtool check metrics` rejects (gauges
 * named like counters: nodejs_active_*_total).
 */
import { collectDefaultMetrics, Registry, type MetricValue } from 'prom-client';
import type { SchemeRegistry } from '../../password/index.js';
import { APPLY_WAIT_BUCKETS, type DirectoryStore } from '../../store/index.js';
import { COUNTER, type Counters } from '../threads/counters.js';
import type { EntryCount } from '../monitor/entry-count.js';
import { BIND_BUCKETS, BIND_RESULTS, CODES, OP_KINDS, SLOT, type StatsReader } from '../monitor/stats.js';

/** Where the metrics are read from. */
export interface MetricsSources {
  readonly reader: StatsReader;
  readonly counters: Counters;
  readonly registry: SchemeRegistry;
  readonly store: DirectoryStore;
  readonly entryCount: EntryCount;
  readonly startedAt: number;
}

/** prom-client's defaults that promtool 2.42 refuses ("non-counter metrics should not have _total suffix"). */
const REJECTED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

type Labels = Record<string, string | number>;
type Kind = 'counter' | 'gauge' | 'histogram';
type Sample = MetricValue<string> & { metricName?: string };

/**
 * A metric whose samples are computed at each scrape: the shape prom-client's registry asks of
 * a metric (name, help, type, get()), which it formats as its own.
 */
function sampled(registry: Registry, name: string, help: string, type: Kind, collect: () => Sample[] | Promise<Sample[]>): void {
  const metric = { name, help, type, get: async () => ({ name, help, type, aggregator: 'sum', values: await collect() }) };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

const one = (value: number, labels: Labels = {}): Sample[] => [{ value, labels }];

function threadSamples(reader: StatsReader, slot: number, labels: Labels = {}): Sample[] {
  return Array.from({ length: reader.threads }, (_, thread) => ({ value: reader.value(slot, thread), labels: { ...labels, thread } }));
}

const KINDS = OP_KINDS.map((op, kind) => ({ op, kind }));
/** The operations that get no response by design: counted as completed only, shown as code 0. */
const UNANSWERED: ReadonlySet<string> = new Set(['unbind', 'abandon']);

/**
 * leveldap_operations_total's samples: by kind and result code; unbind and abandon (never
 * answered) as code 0. Only those two: the serving threads count an answered operation's
 * completion and its code one after the other, so completions minus codes read mid-way gave a
 * second {code="0"} series of the same labels (review 2026-12-08).
 */
export function operationSamples(reader: StatsReader): Sample[] {
  return KINDS.flatMap(({ op, kind }) => {
    if (UNANSWERED.has(op)) {
      const count = reader.completed(kind);
      return count > 0 ? [{ value: count, labels: { op, code: 0 } }] : [];
    }
    return Array.from({ length: CODES }, (_, code) => ({ value: reader.results(kind, code), labels: { op, code } })).filter((sample) => sample.value > 0);
  });
}

function operationMetrics(registry: Registry, reader: StatsReader): void {
  sampled(registry, 'leveldap_operations_initiated_total', 'LDAP operations started, by kind', 'counter',
    () => KINDS.map(({ op, kind }) => ({ value: reader.initiated(kind), labels: { op } })));
  sampled(registry, 'leveldap_operations_total', 'LDAP operations completed, by kind and result code (unbind and abandon: code 0, no response)', 'counter',
    () => operationSamples(reader));
  sampled(registry, 'leveldap_thread_operations_total', 'LDAP operations completed, by serving thread', 'counter',
    () => Array.from({ length: reader.threads }, (_, thread) => ({
      value: KINDS.reduce((sum, { kind }) => sum + reader.value(reader.layout.completed + kind, thread), 0), labels: { thread },
    })));
  sampled(registry, 'leveldap_operations_running', 'LDAP operations in progress, by serving thread', 'gauge', () => threadSamples(reader, SLOT.operationsRunning));
}

/** A histogram's samples: cumulative buckets (counts per bucket given, the last +Inf), sum and count. */
function histogramSamples(
  name: string, bounds: readonly number[], histogram: { readonly buckets: readonly number[]; readonly sum: number; readonly count: number }, labels: Labels = {},
): Sample[] {
  let cumulative = 0;
  const buckets = [...bounds, '+Inf'].map((le, bucket) => {
    cumulative += histogram.buckets[bucket]!;
    return { metricName: `${name}_bucket`, value: cumulative, labels: { ...labels, le } };
  });
  return [...buckets, { metricName: `${name}_sum`, value: histogram.sum, labels }, { metricName: `${name}_count`, value: histogram.count, labels }];
}

function bindMetrics(registry: Registry, reader: StatsReader): void {
  const pairs = reader.layout.schemes.flatMap((scheme, index) => BIND_RESULTS.map((result) => ({ scheme, index, result })));
  const used = () => pairs.filter(({ index, result }) => reader.binds(index, result) > 0);
  sampled(registry, 'leveldap_binds_total', 'Simple binds, by the scheme of the stored value verified (none: nothing verified) and result', 'counter',
    () => used().map(({ scheme, index, result }) => ({ value: reader.binds(index, result), labels: { scheme, result } })));
  sampled(registry, 'leveldap_bind_duration_seconds', 'Simple bind latency in the server, by scheme and result', 'histogram', () => used().flatMap(({ scheme, index, result }) => (
    histogramSamples('leveldap_bind_duration_seconds', BIND_BUCKETS, reader.latency(index, result), { scheme, result })
  )));
  sampled(registry, 'leveldap_bind_cache_hits_total', 'Binds the verified-bind cache answered', 'counter', () => one(reader.value(SLOT.bindCacheHits)));
  sampled(registry, 'leveldap_entry_cache_hits_total', 'Entry records read from the entry cache (copied about once a second)', 'counter', () => one(reader.value(SLOT.entryCacheHits)));
  sampled(registry, 'leveldap_entry_cache_misses_total', 'Entry records read from LevelDB while the entry cache was on', 'counter', () => one(reader.value(SLOT.entryCacheMisses)));
  sampled(registry, 'leveldap_entry_cache_bytes', 'The entry caches\' size over all serving threads (0: off)', 'gauge', () => one(reader.value(SLOT.entryCacheBytes)));
  sampled(registry, 'leveldap_password_table_hits_total', 'Binds whose account the password table answered (copied about once a second)', 'counter', () => one(reader.value(SLOT.passwordTableHits)));
  sampled(registry, 'leveldap_password_table_misses_total', 'Binds that read their account from LevelDB while the password table was on', 'counter', () => one(reader.value(SLOT.passwordTableMisses)));
  sampled(registry, 'leveldap_password_table_bytes', 'Bytes of records the password table holds (0: off)', 'gauge', () => one(reader.value(SLOT.passwordTableBytes)));
  sampled(registry, 'leveldap_equality_table_hits_total', 'Equality lookups the equality table answered (copied about once a second)', 'counter', () => one(reader.value(SLOT.equalityTableHits)));
  sampled(registry, 'leveldap_equality_table_misses_total', 'Equality lookups that read the index from LevelDB while the equality table was on', 'counter', () => one(reader.value(SLOT.equalityTableMisses)));
  sampled(registry, 'leveldap_equality_table_bytes', 'Bytes of records the equality table holds (0: off)', 'gauge', () => one(reader.value(SLOT.equalityTableBytes)));
  sampled(registry, 'leveldap_record_table_hits_total', 'Records of searches the record table answered (copied about once a second)', 'counter', () => one(reader.value(SLOT.recordTableHits)));
  sampled(registry, 'leveldap_record_table_misses_total', 'Records of searches read from LevelDB while the record table was on', 'counter', () => one(reader.value(SLOT.recordTableMisses)));
  sampled(registry, 'leveldap_record_table_bytes', 'Bytes of records the record table holds (0: off)', 'gauge', () => one(reader.value(SLOT.recordTableBytes)));
  sampled(registry, 'leveldap_bind_cache_misses_total', 'Binds of a costly scheme the verified-bind cache could not answer', 'counter', () => one(reader.value(SLOT.bindCacheMisses)));
  sampled(registry, 'leveldap_lockouts_total', 'Accounts locked after failed binds', 'counter', () => one(reader.value(SLOT.lockouts)));
}

function connectionMetrics(registry: Registry, sources: MetricsSources): void {
  const { reader, counters } = sources;
  sampled(registry, 'leveldap_connections_accepted_total', 'Connections let in', 'counter', () => one(reader.value(SLOT.connectionsAccepted)));
  sampled(registry, 'leveldap_connections_refused_total', 'Connections refused, by the limit that refused them', 'counter', () => [
    { value: reader.value(SLOT.connectionsRefusedCap), labels: { limit: 'max-connections' } },
    { value: reader.value(SLOT.connectionsRefusedAddress), labels: { limit: 'max-connections-per-address' } },
  ]);
  sampled(registry, 'leveldap_connections', 'Connections open, by listener', 'gauge', () => [
    { value: Atomics.load(counters, COUNTER.ldapConnections), labels: { listener: 'ldap' } },
    { value: Atomics.load(counters, COUNTER.ldapsConnections), labels: { listener: 'ldaps' } },
  ]);
  sampled(registry, 'leveldap_thread_connections', 'Connections open, by serving thread', 'gauge', () => threadSamples(reader, SLOT.connectionsCurrent));
}

function trafficMetrics(registry: Registry, reader: StatsReader): void {
  const traffic = [
    ['leveldap_sent_bytes_total', 'Bytes of LDAP messages sent', SLOT.bytesSent],
    ['leveldap_sent_messages_total', 'LDAP messages (PDUs) sent', SLOT.pdusSent],
    ['leveldap_sent_entries_total', 'Search result entries sent', SLOT.entriesSent],
    ['leveldap_received_bytes_total', 'Bytes of LDAP messages received', SLOT.bytesReceived],
    ['leveldap_received_messages_total', 'LDAP messages (PDUs) received', SLOT.pdusReceived],
  ] as const;
  for (const [name, help, slot] of traffic) sampled(registry, name, help, 'counter', () => one(reader.value(slot)));
}

function threadMetrics(registry: Registry, reader: StatsReader): void {
  sampled(registry, 'leveldap_threads', 'Serving threads (event loops)', 'gauge', () => one(reader.threads));
  sampled(registry, 'leveldap_event_loop_delay_seconds', 'Event-loop delay of each serving thread over the last second', 'gauge', () => [
    ...threadSamples(reader, SLOT.loopDelayMean, { stat: 'mean' }), ...threadSamples(reader, SLOT.loopDelayP99, { stat: 'p99' }),
    ...threadSamples(reader, SLOT.loopDelayMax, { stat: 'max' }),
  ]);
  sampled(registry, 'leveldap_thread_heap_used_bytes', 'V8 heap in use, by serving thread', 'gauge', () => threadSamples(reader, SLOT.heapUsedBytes));
}

function passwordMetrics(registry: Registry, sources: MetricsSources): void {
  const budget = () => sources.registry.memoryBudget.state();
  sampled(registry, 'leveldap_password_reencodings_total', 'Stored passwords re-encoded after a bind', 'counter', () => one(Atomics.load(sources.counters, COUNTER.reencoded)));
  sampled(registry, 'leveldap_hash_queue_waiting', 'Memory-hard verifications waiting for the hash memory budget', 'gauge', () => one(budget().waiting));
  sampled(registry, 'leveldap_hash_running', 'Memory-hard verifications running', 'gauge', () => one(budget().running));
  sampled(registry, 'leveldap_hash_waits_total', 'Memory-hard verifications that waited for the hash memory budget', 'counter', () => one(sources.reader.value(SLOT.hashWaits)));
  sampled(registry, 'leveldap_hash_wait_seconds_total', 'Seconds those verifications waited, summed', 'counter', () => one(sources.reader.value(SLOT.hashWaitSeconds)));
  sampled(registry, 'leveldap_hash_memory_bytes', 'Memory held by running memory-hard verifications', 'gauge', () => one(budget().inUseKiB * 1024));
}

function storeMetrics(registry: Registry, sources: MetricsSources): void {
  sampled(registry, 'leveldap_store_entries', 'Entries in the database (counted again at most every 10 s, and at most 1% of a core)', 'gauge', async () => one(await sources.entryCount.of(sources.store)));
  sampled(registry, 'leveldap_store_size_bytes', 'Bytes the LevelDB files take on disk', 'gauge', async () => one(await sources.store.sizeOnDisk()));
  sampled(registry, 'leveldap_start_time_seconds', 'When the server started, seconds since the epoch', 'gauge', () => one(sources.startedAt / 1000));
}

/** A node of a PostgreSQL store (--store): its writes, the wait for its copy to apply them, how long PostgreSQL has been silent. */
function postgresMetrics(registry: Registry, store: DirectoryStore): void {
  const stats = store.recordStats();
  if (!stats) return;
  const now = () => store.recordStats()!;
  sampled(registry, 'leveldap_postgres_commits_total', 'Writes committed to the PostgreSQL store', 'counter', () => one(now().commits));
  sampled(registry, 'leveldap_postgres_transactions_total', 'PostgreSQL transactions the writes at once were committed in (writes arriving together share one)', 'counter', () => one(now().transactions));
  sampled(registry, 'leveldap_postgres_locked_first_total', 'Writes that locked their entries in PostgreSQL before running (entries other nodes wrote lately)', 'counter', () => one(now().lockedFirst));
  sampled(registry, 'leveldap_postgres_stale_retries_total', 'Writes run again because the local copy was behind the PostgreSQL store', 'counter', () => one(now().staleRetries));
  sampled(registry, 'leveldap_postgres_silent_seconds', 'Seconds since PostgreSQL last answered the replication stream', 'gauge', () => one(now().silentSeconds));
  sampled(registry, 'leveldap_postgres_apply_wait_seconds', 'How long a committed write waited for the local copy to apply it (read-your-writes)', 'histogram',
    () => histogramSamples('leveldap_postgres_apply_wait_seconds', APPLY_WAIT_BUCKETS, now().applyWait));
}

/** A registry holding every leveldap metric and prom-client's process and Node defaults. */
export function metricsRegistry(sources: MetricsSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of REJECTED_DEFAULTS) registry.removeSingleMetric(name);
  operationMetrics(registry, sources.reader);
  bindMetrics(registry, sources.reader);
  connectionMetrics(registry, sources);
  trafficMetrics(registry, sources.reader);
  threadMetrics(registry, sources.reader);
  passwordMetrics(registry, sources);
  storeMetrics(registry, sources);
  postgresMetrics(registry, sources.store);
  return registry;
}
