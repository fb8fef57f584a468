/**
 * Access control: who may do what, in one table (ACCESS below). A row is the requester as seen
 * from the entry an operation touches; a column is a right. Every handler asks here: search and
 * compare (read), add, delete, modify, modify DN and password modify (write). Refusals answer
 * insufficientAccessRights (50). Binding is always allowed. Later password policies extend this.
 *
 * "write entry" is add, delete, modify DN, and a modify of any attribute but userPassword;
 * "write userPassword" is a modify touching only userPassword, or a password modify.
 */
import { DirectoryError, typeKey } from '../store/index.js';
import type { ServerConfig } from './config.js';

export type Requester = 'anonymous' | 'self' | 'otherUser' | 'admin';
export type Right = 'readEntry' | 'readPassword' | 'writeEntry' | 'writePassword';

/** Yes, unless the server runs with --no-anonymous-read. */
const ANONYMOUS_READ = 'unless --no-anonymous-read';
type Rule = boolean | typeof ANONYMOUS_READ;

export const ACCESS: Readonly<Record<Requester, Readonly<Record<Right, Rule>>>> = {
  //           read entry                 read userPassword    write entry        write userPassword
  anonymous: { readEntry: ANONYMOUS_READ, readPassword: false, writeEntry: false, writePassword: false },
  self:      { readEntry: true,           readPassword: true,  writeEntry: false, writePassword: true },
  otherUser: { readEntry: true,           readPassword: false, writeEntry: false, writePassword: false },
  admin:     { readEntry: true,           readPassword: true,  writeEntry: true,  writePassword: true },
};

/** Who is bound on the connection (a Session is one). */
export interface Identity {
  readonly isAdmin: boolean;
  /** The bound DN, normalized ('' when anonymous). */
  readonly normalizedDn: string;
}

/** The row of the table: the identity as seen from the entry (its normalized DN). */
export function requesterOf(identity: Identity, entryNormalizedDn: string): Requester {
  if (identity.isAdmin) return 'admin';
  if (identity.normalizedDn === '') return 'anonymous';
  return identity.normalizedDn === entryNormalizedDn ? 'self' : 'otherUser';
}

export function allowed(identity: Identity, config: Pick<ServerConfig, 'anonymousRead'>, entryNormalizedDn: string, right: Right): boolean {
  const rule = ACCESS[requesterOf(identity, entryNormalizedDn)][right];
  return rule === ANONYMOUS_READ ? config.anonymousRead : rule;
}

/** May it see (and test with filters or compare) this entry's userPassword? */
export function mayReadPassword(identity: Identity, entryNormalizedDn: string): boolean {
  return ACCESS[requesterOf(identity, entryNormalizedDn)].readPassword === true;
}

/** The right a write of this attribute needs. */
export function writeRightFor(attribute: string): Right {
  return typeKey(attribute) === 'userpassword' ? 'writePassword' : 'writeEntry';
}

const REFUSALS: Readonly<Record<Right, string>> = {
  readEntry: 'anonymous read is disabled',
  readPassword: 'userPassword may not be read',
  writeEntry: 'only the admin may change entries; a user may change only its own userPassword',
  writePassword: 'only the admin may set another entry\'s userPassword',
};

/** Throws insufficientAccessRights unless the table allows it. */
export function requireAccess(identity: Identity, config: Pick<ServerConfig, 'anonymousRead'>, entryNormalizedDn: string, right: Right): void {
  if (allowed(identity, config, entryNormalizedDn, right)) return;
  const anonymousWrite = identity.normalizedDn === '' && !identity.isAdmin && right !== 'readEntry';
  throw new DirectoryError('insufficientAccessRights', anonymousWrite ? 'anonymous clients may only bind and read' : REFUSALS[right]);
}
