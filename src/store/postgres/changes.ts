/**
 * Between a node's LevelDB batches and PostgreSQL's rows, both ways, pure:
 *
 * - rowChanges: what a write's batch (writes.ts) changes in the system of record: the entry
 *   records it puts or deletes (e\0 keys; a naming context where it also puts s\0) and the
 *   settings (m\0setting:). Every other key of the batch is derived and stays local.
 * - localOps: what the applier writes into a node's LevelDB for an entry that changed in
 *   PostgreSQL from `before` to `after`: the record as PostgreSQL holds it, and the one-level,
 *   naming-context, index and group keys derived from it, as writes.ts derives them.
 */
import { decodeEntry } from '../codec.js';
import { parseDn } from '../dn.js';
import { entryKey, metaKey, parentKeyOf, suffixKey } from '../keys.js';
import { del, deletionOps, entryOps, put, replacementOps, type BatchOp } from '../batch-ops.js';

/** An entry row: its record and whether it starts a naming context (parent NULL). */
export interface EntryRow {
  readonly record: Buffer;
  readonly suffix: boolean;
}

export interface RowChanges {
  /** By dnKey: the new row, or null when the entry is deleted. */
  readonly entries: Map<string, EntryRow | null>;
  /** By name: the new value, or null when it is removed. */
  readonly settings: Map<string, string | null>;
}

const ENTRY_PREFIX = entryKey('');
const SUFFIX_PREFIX = suffixKey('');
const SETTING_PREFIX = metaKey('setting:');

/** The rows a batch changes (see the header). */
export function rowChanges(ops: readonly BatchOp[]): RowChanges {
  const suffixes = new Set(ops.filter((op) => op.type === 'put' && op.key.startsWith(SUFFIX_PREFIX)).map((op) => op.key.slice(SUFFIX_PREFIX.length)));
  const entries = new Map<string, EntryRow | null>();
  const settings = new Map<string, string | null>();
  for (const op of ops) {
    if (op.key.startsWith(ENTRY_PREFIX)) {
      const key = op.key.slice(ENTRY_PREFIX.length);
      entries.set(key, op.type === 'put' ? { record: op.value, suffix: suffixes.has(key) } : null);
    } else if (op.key.startsWith(SETTING_PREFIX)) {
      settings.set(op.key.slice(SETTING_PREFIX.length), op.type === 'put' ? op.value.toString('utf8') : null);
    }
  }
  return { entries, settings };
}

/** The parent column of a row: NULL for a naming context. */
export function parentColumn(key: string, row: EntryRow): string | null {
  return row.suffix ? null : parentKeyOf(key);
}

/**
 * The LevelDB operations for one entry changing from `before` (the record the node holds, if
 * any) to `after` (PostgreSQL's row, or null when deleted): removals first, then puts, so a
 * batch of several entries may list every removal before every put (see localBatch).
 */
export function localOps(key: string, before: Buffer | undefined, after: EntryRow | null, indexed: ReadonlySet<string>): { removals: BatchOp[]; puts: BatchOp[] } {
  const old = before && decodeEntry(before);
  const next = after && decodeEntry(after.record);
  const suffixOps = [after?.suffix ? put(suffixKey(key)) : del(suffixKey(key))];
  if (old && next) {
    const changes = replacementOps(indexed, key, old, next, after.record);
    return { removals: changes.filter((op) => op.type === 'del'), puts: [...changes.filter((op) => op.type === 'put'), ...suffixOps] };
  }
  if (next) {
    const ops = entryOps(next, [key, parentKeyOf(key)], indexed).filter((op) => op.key !== entryKey(key));
    return { removals: [], puts: [put(entryKey(key), after.record), ...suffixOps, ...ops] };
  }
  if (!old) return { removals: [], puts: [] };
  return { removals: deletionOps(old, key, parentKeyOf(key), parseDn(old.dn)[0]!, indexed), puts: [] };
}

/** One LevelDB batch for a PostgreSQL transaction's entries: every removal, then every put. */
export function localBatch(changes: ReadonlyMap<string, EntryRow | null>, before: ReadonlyMap<string, Buffer | undefined>, indexed: ReadonlySet<string>): BatchOp[] {
  const removals: BatchOp[] = [];
  const puts: BatchOp[] = [];
  for (const [key, after] of changes) {
    const ops = localOps(key, before.get(key), after, indexed);
    removals.push(...ops.removals);
    puts.push(...ops.puts);
  }
  return [...removals, ...puts];
}

/** The LevelDB operations of settings changes. */
export function settingOps(settings: ReadonlyMap<string, string | null>): BatchOp[] {
  return [...settings].map(([name, value]) => (value === null ? del(metaKey(`setting:${name}`)) : put(metaKey(`setting:${name}`), Buffer.from(value, 'utf8'))));
}
