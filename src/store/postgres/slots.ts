/**
 * The nodes of a PostgreSQL store as PostgreSQL sees them: one logical replication slot each,
 * named leveldap_NAME (node.ts: slotName), in the store's database. A slot whose node is gone
 * keeps WAL until it is dropped (or max_slot_wal_keep_size gives up on it): `leveldap nodes`
 * lists them with the WAL each holds back, and drops one that is not in use.
 */
import type pg from 'pg';
import { StoreError } from '../errors.js';
import { slotName } from './node.js';
import { SLOT_PREFIX } from './schema.js';

export interface NodeSlot {
  /** The node's name as its slot holds it (slotName lowercases it). */
  readonly node: string;
  readonly slot: string;
  /** A node is streaming from it now. */
  readonly active: boolean;
  readonly activePid: number | null;
  /** The position the node confirmed it applied (confirmed_flush_lsn). */
  readonly confirmed: string | null;
  /** WAL kept for the slot: from its restart_lsn to the current WAL position; null when lost. */
  readonly walRetainedBytes: number | null;
  /** reserved, extended, unreserved or lost (pg_replication_slots.wal_status). */
  readonly walStatus: string | null;
}

interface SlotRow {
  slot_name: string;
  active: boolean;
  active_pid: number | null;
  confirmed_flush_lsn: string | null;
  retained: string | null;
  wal_status: string | null;
}

const SLOTS = `SELECT slot_name, active, active_pid, confirmed_flush_lsn::text,
    pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::text AS retained, wal_status
  FROM pg_replication_slots
  WHERE slot_type = 'logical' AND database = current_database() AND starts_with(slot_name, $1)`;

/** PostgreSQL's code for an object in use: the slot is active. */
const IN_USE = '55006';

function nodeSlot(row: SlotRow): NodeSlot {
  return {
    node: row.slot_name.slice(SLOT_PREFIX.length), slot: row.slot_name, active: row.active, activePid: row.active_pid,
    confirmed: row.confirmed_flush_lsn, walRetainedBytes: row.retained === null ? null : Number(row.retained), walStatus: row.wal_status,
  };
}

/** The leveldap nodes' slots of this database, by name. */
export async function nodeSlots(client: pg.ClientBase): Promise<NodeSlot[]> {
  const { rows } = await client.query<SlotRow>(`${SLOTS} ORDER BY slot_name`, [SLOT_PREFIX]);
  return rows.map(nodeSlot);
}

/** The slot of the node `name`, or undefined for a name too long to be one. */
function slotOf(name: string): string | undefined {
  try {
    return slotName(name);
  } catch {
    return undefined;
  }
}

/** The slot `name` names: a node's slot by its full name, else by the node's name. */
function findSlot(slots: readonly NodeSlot[], name: string): NodeSlot | undefined {
  const byNode = slotOf(name);
  return slots.find((slot) => slot.slot === name) ?? slots.find((slot) => slot.slot === byNode);
}

function activeError(slot: NodeSlot): StoreError {
  const pid = slot.activePid === null ? '' : ` (PostgreSQL backend ${slot.activePid})`;
  return new StoreError(`the slot ${slot.slot} is active: node ${slot.node} is streaming from it${pid}; stop that node first`);
}

/** Drops a node's slot (`name`: the node's name or the slot's); refuses an active one. Returns the slot dropped. */
export async function dropNodeSlot(client: pg.ClientBase, name: string): Promise<NodeSlot> {
  const slots = await nodeSlots(client);
  const slot = findSlot(slots, name);
  if (!slot) {
    const known = slots.length === 0 ? 'it has none' : `its nodes: ${slots.map((found) => found.node).join(', ')}`;
    throw new StoreError(`no node ${name} in this PostgreSQL store (${known})`);
  }
  if (slot.active) throw activeError(slot);
  try {
    await client.query('SELECT pg_drop_replication_slot($1)', [slot.slot]);
  } catch (error) {
    if ((error as { code?: string }).code === IN_USE) throw activeError({ ...slot, activePid: null });
    throw error;
  }
  return slot;
}
