export { openNode, slotName, type StoreNode, type NodeOptions } from './node.js';
export { isPostgresUrl, DEFAULT_MAX_STALENESS } from './url.js';
export { ensureSchema, storeIdentity, ENTRIES, SETTINGS, FAILURES, SLOT_PREFIX, PUBLICATION } from './schema.js';
export { parentColumn, type EntryRow } from './changes.js';
export { EntriesTable } from './table.js';
export { nodeSlots, dropNodeSlot, type NodeSlot } from './slots.js';
