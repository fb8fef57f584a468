export { DirectoryStore, STORE_FORMAT, type Scope, type IndexHint, type OpenOptions, type AddOptions } from './store.js';
export { BulkLoader } from './bulk.js';
export { DirectoryError, StoreError, ResultCode, type ResultCodeName } from './errors.js';
export { parseDn, formatDn, normalizeDn, normalizeRdn, escapeValue, type Dn, type Rdn, type Ava } from './dn.js';
export { values, findAttribute, hasAttribute, groupAttributes, withAttribute, type Entry, type Attribute } from './entry.js';
export { normalizeValue } from './matching.js';
export { attributeType, attributeKey, typeKey, type AttributeType } from './schema.js';
export { DEFAULT_INDEXES } from './indexes.js';
export { generalizedTime } from './operational.js';
