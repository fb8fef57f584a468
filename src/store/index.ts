export { DirectoryStore, type AddOptions } from './store.js';
export { STORE_FORMAT, DEFAULT_CACHE_MB, DEFAULT_ENTRY_CACHE_MB, type OpenOptions } from './level.js';
export { APPLY_WAIT_BUCKETS, type RecordStats, type SharedFailures } from './system-of-record.js';
export type { Scope, IndexHint } from './reads.js';
export { closeSource, type RecordSource } from './record-source.js';
export { SortedLoad } from './sorted-load.js';
export { BulkLoader, UNFINISHED_LOAD, type BulkTarget } from './bulk.js';
export { planBulkEntry, type BulkPlan, type PlanContext } from './bulk-plan.js';
export { put, type BatchOp } from './batch-ops.js';
export { DirectoryError, StoreError } from './errors.js';
export {
  parseDn, formatDn, formatRdn, splitPlainFirstRdn, escapeValue, dnSizeProblem, DEFAULT_DN_LIMITS, DN_CEILING, type Dn, type DnLimits, type Rdn, type Ava,
} from './dn.js';
export { values, findAttribute, hasAttribute, groupAttributes, withAttribute, type Entry, type Attribute } from './entry.js';
export { EntryRecord } from './entry-record.js';
export { KEEP_NONE, type KeepName } from './codec.js';
export { normalizeDn, normalizeLeafRdn, normalizeRdn, normalizeValue } from './normalize.js';
export { attributeType, attributeKey, isKnownType, typeKey, type AttributeType } from './schema.js';
export { DEFAULT_INDEXES } from './indexes.js';
export { SharedSlots, fnv1a } from './mutex.js';
export { WriteGate } from './write-gate.js';
export { SharedTable, staleTables, DEFAULT_EQUALITY_TABLE_MB, DEFAULT_PASSWORD_TABLE_MB, DEFAULT_RECORD_TABLE_MB, defaultRecordTableMb, MIN_TABLE_MB, MAX_TABLE_MB, type TableMemory } from './shared-table.js';
export type { WalkTurns } from './password-walk.js';
export type { StoreLog } from './recovery.js';
export { generalizedTime, parseGeneralizedTime, isGeneralizedTime } from './time.js';
export {
  addEntry, modifyEntry, updateEntry, deleteEntry, renameEntry, DEFAULT_MAX_REFINT_GROUPS,
  type WriteOptions, type AddEntryOptions, type ModifyOptions, type DeleteOptions, type RenameOptions, type Rename,
} from './writes.js';
export { DEFAULT_MAX_NESTED_GROUPS, type Group, type Walked } from './memberships.js';
export { DEFAULT_MAX_SUBTREE_RENAME } from './subtree.js';
export { dnKey, keyBelow, keyBelowNormalized, normalizedDnOf, MEMBER_OF } from './keys.js';
export type { Modification } from './modification.js';
export { currentSchema, installSchema, buildSchema } from './schema/installed.js';
export { keyTypesChanged, KEY_TYPES_ADVICE, KEY_TYPES_CHANGED, LISTED_KEY_TYPES } from './key-types.js';
export { SchemaMemo } from './schema/memo.js';
export { subschemaEntry, SUBSCHEMA_DN, SUBSCHEMA_KEY } from './schema/subschema.js';
export { SchemaError } from './schema/registry.js';
export { SchemaSyntaxError } from './schema/parse.js';
