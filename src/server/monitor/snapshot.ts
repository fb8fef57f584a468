/**
 * One reading of the server for cn=Monitor: the counters summed over the threads, every
 * thread's connections (asked over the threads' channel), the database's entries and size, the
 * listeners, the hashing queue. Bound DNs the reader may not see (access.ts, MONITOR_ACCESS)
 * are left out here, before any entry is built.
 */
import type { Identity, MonitorAccess } from '../access.js';
import { monitorRule } from '../access.js';
import type { ServerContext } from '../context.js';
import { COUNTER } from '../threads/counters.js';
import type { ConnectionRecord } from './connections.js';
import type { MonitorSnapshot } from './tree.js';

/** The record as this reader may see it: another's bound DN hidden unless the rule shows all. */
function visible(record: ConnectionRecord, viewer: Identity, access: MonitorAccess): ConnectionRecord {
  if (monitorRule(viewer, access).boundDns === 'all') return record;
  const own = record.normalizedDn !== '' && record.normalizedDn === viewer.normalizedDn;
  return own ? record : { ...record, boundDn: '', normalizedDn: '' };
}

export async function takeSnapshot(server: ServerContext, viewer: Identity): Promise<MonitorSnapshot> {
  const { monitor, store, counters, config } = server;
  const access = config.monitorAccess ?? 'admin';
  const [connections, suffixes, entries, sizeBytes] = await Promise.all([
    monitor.peers.connections(), store.suffixes(), monitor.entryCount.of(store), store.sizeOnDisk(),
  ]);
  const budget = server.registry.memoryBudget.state();
  return {
    reader: monitor.reader, vendorVersion: server.vendorVersion,
    currentConnections: Atomics.load(counters, COUNTER.ldapConnections) + Atomics.load(counters, COUNTER.ldapsConnections),
    reencoded: Atomics.load(counters, COUNTER.reencoded),
    connections: connections.map((record) => visible(record, viewer, access)),
    threads: monitor.seed.threads, startedAt: monitor.seed.startedAt, now: Date.now(),
    database: { suffixes: [...new Set([...suffixes, config.baseDn])], entries, sizeBytes, directory: store.dir },
    listeners: monitor.listeners, hashing: { waiting: budget.waiting, running: budget.running },
  };
}
