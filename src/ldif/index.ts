export { readLdif, parseLdif, DEFAULT_MAX_RECORD_BYTES } from './reader.js';
export type { ReadLdifOptions } from './reader.js';
export { formatLdifEntry, formatLdifHeader, formatLdif, isSafeString } from './writer.js';
export type { LdifEntryInput, FormatLdifOptions } from './writer.js';
export { LdifError } from './errors.js';
export type { LdifValue, LdifControl, LdifChange, LdifRecord } from './types.js';
