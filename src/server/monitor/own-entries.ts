/**
 * leveldap's own entries in cn=Monitor, beside OpenLDAP's subsystems (tree.ts): cn=Binds (per
 * scheme, binds by result and their latency histogram), cn=Bind Cache, cn=Passwords (re-encodings,
 * lockouts), cn=Hashing (the hash memory budget's queue).
 */
import type { Entry } from '../../store/index.js';
import { attribute, container, counter, MONITOR_DN, under } from './entries.js';
import { BIND_BUCKETS, BIND_RESULTS, SLOT, type StatsReader } from './stats.js';
import type { MonitorSnapshot } from './tree.js';

/** cn=Binds: per scheme, binds by result and their latency (monitoredInfo "le=SECONDS count=N" per bucket, cumulative). */
export function binds({ reader }: MonitorSnapshot): Entry[] {
  const parent = under('Binds', MONITOR_DN);
  const schemes = reader.layout.schemes.map((name, scheme) => ({ name, scheme }));
  const total = (scheme: number) => BIND_RESULTS.reduce((sum, result) => sum + reader.binds(scheme, result), 0);
  return [
    container('Binds', 'leveldap: simple binds by the scheme of the stored value verified ("none": nothing verified) and by result.'),
    ...schemes.filter(({ scheme }) => total(scheme) > 0).map(({ name, scheme }) => counter(name, parent, total(scheme),
      attribute('monitoredInfo', ...BIND_RESULTS.flatMap((result) => latencyInfo(reader, scheme, result))))),
  ];
}

function latencyInfo(reader: StatsReader, scheme: number, result: (typeof BIND_RESULTS)[number]): string[] {
  const { buckets, sum, count } = reader.latency(scheme, result);
  let cumulative = 0;
  const bounds = BIND_BUCKETS.map((bound, bucket) => {
    cumulative += buckets[bucket]!;
    return `${result} le=${bound} count=${cumulative}`;
  });
  return [`${result}=${count}`, `${result} seconds=${sum.toFixed(6)}`, ...bounds];
}

export function policy(snapshot: MonitorSnapshot): Entry[] {
  const { reader } = snapshot;
  const cache = under('Bind Cache', MONITOR_DN);
  const entryCache = under('Entry Cache', MONITOR_DN);
  const passwords = under('Passwords', MONITOR_DN);
  const table = under('Password Table', MONITOR_DN);
  const equalities = under('Equality Table', MONITOR_DN);
  const records = under('Record Table', MONITOR_DN);
  const hashing = under('Hashing', MONITOR_DN);
  return [
    container('Bind Cache', 'leveldap: the verified-bind cache (--bind-cache-ttl).'),
    counter('Hits', cache, reader.value(SLOT.bindCacheHits)),
    counter('Misses', cache, reader.value(SLOT.bindCacheMisses)),
    container('Entry Cache', 'leveldap: recent entry records kept by each serving thread (--entry-cache-mb; off when the directory does not fit). Counted about once a second.'),
    counter('Hits', entryCache, reader.value(SLOT.entryCacheHits)),
    counter('Misses', entryCache, reader.value(SLOT.entryCacheMisses)),
    counter('Bytes', entryCache, reader.value(SLOT.entryCacheBytes), attribute('description', 'The caches\' size over all threads (0: off)')),
    container('Password Table', 'leveldap: every account\'s userPassword values in memory shared by the serving threads (--password-table-mb), filled by binds. Counted about once a second.'),
    counter('Hits', table, reader.value(SLOT.passwordTableHits)),
    counter('Misses', table, reader.value(SLOT.passwordTableMisses), attribute('description', 'Binds that read their account from LevelDB (first read, or written since)')),
    counter('Bytes', table, reader.value(SLOT.passwordTableBytes), attribute('description', 'Bytes of records held (0: off)')),
    container('Equality Table', 'leveldap: answers of the equality index (the entries holding one value) in memory shared by the serving threads (--equality-table-mb), filled by searches. Counted about once a second.'),
    counter('Hits', equalities, reader.value(SLOT.equalityTableHits), attribute('description', 'Equality lookups it answered (those the thread\'s own recent answers did not)')),
    counter('Misses', equalities, reader.value(SLOT.equalityTableMisses), attribute('description', 'Equality lookups that read the index from LevelDB (first read, or written since)')),
    counter('Bytes', equalities, reader.value(SLOT.equalityTableBytes), attribute('description', 'Bytes of records held (0: off)')),
    container('Record Table', 'leveldap: entry records in memory shared by the serving threads (--record-table-mb), read by searches where each thread\'s entry cache is off (the directory does not fit), filled by searches. Counted about once a second.'),
    counter('Hits', records, reader.value(SLOT.recordTableHits), attribute('description', 'Records of searches it answered')),
    counter('Misses', records, reader.value(SLOT.recordTableMisses), attribute('description', 'Records of searches read from LevelDB (first read, or written since)')),
    counter('Bytes', records, reader.value(SLOT.recordTableBytes), attribute('description', 'Bytes of records held (0: off)')),
    container('Passwords', 'leveldap: the password policy at work.'),
    counter('Re-encoded', passwords, snapshot.reencoded, attribute('description', 'Stored passwords re-encoded after a bind')),
    counter('Lockouts', passwords, reader.value(SLOT.lockouts), attribute('description', 'Accounts locked after failed binds')),
    container('Hashing', 'leveldap: memory-hard verifications under the hash memory budget.'),
    counter('Waiting', hashing, snapshot.hashing.waiting),
    counter('Running', hashing, snapshot.hashing.running),
    counter('Waited', hashing, reader.value(SLOT.hashWaits), attribute('monitoredInfo', `seconds=${reader.value(SLOT.hashWaitSeconds).toFixed(6)}`),
      attribute('description', 'Verifications that waited for the budget, and the seconds they waited')),
  ];
}
