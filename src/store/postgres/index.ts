export { openNode, slotName, isPostgresUrl, DEFAULT_MAX_STALENESS, type StoreNode, type NodeOptions } from './node.js';
export { ensureSchema, storeIdentity, ENTRIES, SETTINGS, FAILURES, SLOT_PREFIX, PUBLICATION } from './schema.js';
export { parentColumn, type EntryRow } from './changes.js';
export { EntriesTable } from './table.js';
export { nodeSlots, dropNodeSlot, type NodeSlot } from './slots.js';
