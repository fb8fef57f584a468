/**
 * The cn=Monitor subtree, built from one snapshot of the counters each time it is read, named
 * and shaped as OpenLDAP's back-monitor (cn=Connections, cn=Operations, cn=Statistics,
 * cn=Threads, cn=Time, cn=Databases, cn=Listeners; counters in monitorCounter,
 * monitorOpInitiated and monitorOpCompleted, which are operational: `+` or by name), plus
 * leveldap's own (own-entries.ts). Entries are listed parents first.
 */
import type { Entry } from '../../store/index.js';
import type { ConnectionRecord } from './connections.js';
import { attribute, container, counter, entry, info, MONITOR_DN, time, under } from './entries.js';
import { binds, policy } from './own-entries.js';
import { OP_KINDS, SLOT, type StatsReader } from './stats.js';

export { MONITOR_DN, MONITOR_KEY } from './entries.js';

/** Everything one reading of cn=Monitor shows, gathered first (snapshot.ts). */
export interface MonitorSnapshot {
  readonly reader: StatsReader;
  readonly vendorVersion: string;
  /** Connections open now per listener (the shared counts --max-connections uses), and re-encodings so far. */
  readonly currentConnections: number;
  readonly reencoded: number;
  /** Every serving thread's connections, bound DNs already hidden where the reader may not see them. */
  readonly connections: readonly ConnectionRecord[];
  readonly threads: number;
  readonly startedAt: number;
  readonly now: number;
  readonly database: { readonly suffixes: readonly string[]; readonly entries: number; readonly sizeBytes: number; readonly directory: string };
  readonly listeners: readonly string[];
  readonly hashing: { readonly waiting: number; readonly running: number };
}

/** OpenLDAP's names of the operations (cn=Operations' children). */
const OPERATION_NAMES: Readonly<Record<(typeof OP_KINDS)[number], string>> = {
  bind: 'Bind', unbind: 'Unbind', search: 'Search', compare: 'Compare', modify: 'Modify',
  modifyDn: 'Modrdn', add: 'Add', delete: 'Delete', abandon: 'Abandon', extended: 'Extended',
};

function connectionEntry(record: ConnectionRecord, parent: string): Entry {
  return entry(under(`Connection ${record.id}`, parent), 'monitorConnection',
    attribute('monitorConnectionNumber', record.id),
    attribute('monitorConnectionProtocol', 3),
    attribute('monitorConnectionOpsReceived', record.opsReceived),
    attribute('monitorConnectionOpsExecuting', record.opsExecuting),
    attribute('monitorConnectionOpsPending', record.opsPending),
    attribute('monitorConnectionOpsCompleted', record.opsCompleted),
    ...(record.boundDn === '' ? [] : [attribute('monitorConnectionAuthzDN', record.boundDn)]),
    attribute('monitorConnectionListener', record.listener),
    attribute('monitorConnectionPeerAddress', record.peer),
    attribute('monitorConnectionLocalAddress', record.local),
    attribute('monitorConnectionStartTime', time(record.startTime)),
    attribute('monitorConnectionActivityTime', time(record.activityTime)),
    attribute('monitoredInfo', `thread=${record.thread}`));
}

function connections(snapshot: MonitorSnapshot): Entry[] {
  const parent = under('Connections', MONITOR_DN);
  const { reader } = snapshot;
  return [
    container('Connections', 'This subsystem contains information about connections.'),
    counter('Total', parent, reader.value(SLOT.connectionsAccepted)),
    counter('Current', parent, snapshot.currentConnections),
    counter('Refused', parent, reader.value(SLOT.connectionsRefusedCap) + reader.value(SLOT.connectionsRefusedAddress),
      attribute('monitoredInfo', `max-connections=${reader.value(SLOT.connectionsRefusedCap)}`, `max-connections-per-address=${reader.value(SLOT.connectionsRefusedAddress)}`)),
    ...snapshot.connections.map((record) => connectionEntry(record, parent)),
  ];
}

function operations({ reader }: MonitorSnapshot): Entry[] {
  const parent = under('Operations', MONITOR_DN);
  const kinds = OP_KINDS.map((_, kind) => kind);
  const sum = (of: (kind: number) => number) => kinds.reduce((total, kind) => total + of(kind), 0);
  return [
    container('Operations', 'This subsystem contains information about performed operations.',
      attribute('monitorOpInitiated', sum((kind) => reader.initiated(kind))), attribute('monitorOpCompleted', sum((kind) => reader.completed(kind)))),
    ...kinds.map((kind) => entry(under(OPERATION_NAMES[OP_KINDS[kind]!], parent), 'monitorOperation',
      attribute('monitorOpInitiated', reader.initiated(kind)), attribute('monitorOpCompleted', reader.completed(kind)))),
  ];
}

function statistics({ reader }: MonitorSnapshot): Entry[] {
  const parent = under('Statistics', MONITOR_DN);
  return [
    container('Statistics', 'This subsystem contains statistics.'),
    counter('Bytes', parent, reader.value(SLOT.bytesSent)),
    counter('PDU', parent, reader.value(SLOT.pdusSent)),
    counter('Entries', parent, reader.value(SLOT.entriesSent)),
    counter('Referrals', parent, 0),
    counter('Bytes Received', parent, reader.value(SLOT.bytesReceived)),
    counter('PDU Received', parent, reader.value(SLOT.pdusReceived)),
  ];
}

/** One serving thread: its connections, operations running, event-loop delay and heap. */
function threadEntry(snapshot: MonitorSnapshot, thread: number, parent: string): Entry {
  const { reader } = snapshot;
  const value = (slot: number) => reader.value(slot, thread);
  return entry(under(`Thread ${thread}`, parent), 'monitoredObject',
    attribute('monitoredInfo',
      `connections=${value(SLOT.connectionsCurrent)}`, `operations=${value(SLOT.operationsRunning)}`,
      `eventLoopDelayMeanMs=${(value(SLOT.loopDelayMean) * 1000).toFixed(3)}`, `eventLoopDelayP99Ms=${(value(SLOT.loopDelayP99) * 1000).toFixed(3)}`,
      `eventLoopDelayMaxMs=${(value(SLOT.loopDelayMax) * 1000).toFixed(3)}`, `heapUsedBytes=${value(SLOT.heapUsedBytes)}`),
    attribute('description', 'A serving thread (event loop)'));
}

function threads(snapshot: MonitorSnapshot): Entry[] {
  const parent = under('Threads', MONITOR_DN);
  const all = Array.from({ length: snapshot.threads }, (_, thread) => thread);
  return [
    container('Threads', 'This subsystem contains information about threads.'),
    info('Max', parent, snapshot.threads, 'Maximum number of threads as configured'),
    info('Open', parent, snapshot.threads, 'Number of open threads'),
    info('Active', parent, all.filter((thread) => snapshot.reader.value(SLOT.operationsRunning, thread) > 0).length, 'Number of active threads'),
    ...all.map((thread) => threadEntry(snapshot, thread, parent)),
  ];
}

function timeEntries(snapshot: MonitorSnapshot): Entry[] {
  const parent = under('Time', MONITOR_DN);
  return [
    container('Time', 'This subsystem contains information about time.'),
    entry(under('Start', parent), 'monitoredObject', attribute('monitorTimestamp', time(snapshot.startedAt))),
    entry(under('Current', parent), 'monitoredObject', attribute('monitorTimestamp', time(snapshot.now))),
    info('Uptime', parent, Math.floor((snapshot.now - snapshot.startedAt) / 1000)),
  ];
}

function databases(snapshot: MonitorSnapshot): Entry[] {
  const parent = under('Databases', MONITOR_DN);
  const database = under('Database 1', parent);
  const { suffixes, entries, sizeBytes, directory } = snapshot.database;
  return [
    container('Databases', 'This subsystem contains information about configured databases.',
      attribute('readOnly', 'FALSE'), attribute('namingContexts', ...suffixes), attribute('monitorContext', MONITOR_DN)),
    entry(database, 'monitoredObject', attribute('monitoredInfo', 'leveldb'), attribute('namingContexts', ...suffixes),
      attribute('monitorIsShadow', 'FALSE'), attribute('readOnly', 'FALSE'), attribute('labeledURI', `file://${directory}`)),
    counter('Entries', database, entries, attribute('description', 'Entries in the database')),
    counter('Size', database, sizeBytes, attribute('description', 'Bytes the database takes on disk')),
  ];
}

function listeners(snapshot: MonitorSnapshot): Entry[] {
  const parent = under('Listeners', MONITOR_DN);
  return [
    container('Listeners', 'This subsystem contains information about active listeners.'),
    ...snapshot.listeners.map((url, index) => {
      const address = new URL(url);
      return entry(under(`Listener ${index}`, parent), 'monitoredObject',
        attribute('monitorConnectionLocalAddress', `IP=${address.hostname}:${address.port}`), attribute('labeledURI', url));
    }),
  ];
}

/** Every entry of cn=Monitor, parents first. */
export function monitorTree(snapshot: MonitorSnapshot): Entry[] {
  const root = entry(MONITOR_DN, 'monitorServer',
    attribute('description', 'This subtree contains monitoring/managing objects.', 'This object contains information about this server.',
      'Most of the information is held in operational attributes, which must be explicitly requested.'),
    attribute('monitoredInfo', `leveldap ${snapshot.vendorVersion}`));
  return [root, ...connections(snapshot), ...databases(snapshot), ...listeners(snapshot), ...operations(snapshot),
    ...statistics(snapshot), ...threads(snapshot), ...timeEntries(snapshot), ...binds(snapshot), ...policy(snapshot)];
}
