/**
 * Access control: who may do what, in one table (ACCESS below). A row is the requester as seen
 * from the entry an operation touches; a column is a right. Every handler asks here: search and
 * compare (read), add, delete, modify, modify DN and password modify (write). Refusals answer
 * insufficientAccessRights (50). Binding is always allowed.
 *
 * "read userPassword" and "read policy state" cover returning the attributes, filtering on them
 * and comparing them; without the right, a search sees an entry as if it lacked them. The policy
 * state is every type the schema marks policyState: pwdChangedTime, pwdAccountLockedTime and
 * pwdFailureTime (whether and when an account is locked, when it failed, when its password
 * changed: a bind reveals none of it, so a read must not either). Writing them is "write entry".
 *
 * "write entry" is add, delete, modify DN, and a modify of any attribute but userPassword;
 * "write userPassword" is a modify touching only userPassword, or a password modify.
 *
 * cn=Monitor has a table of its own (MONITOR_ACCESS): who may read it under each
 * --monitor-access, and whose bound DNs they see in cn=Connections.
 */
import { attributeType, DirectoryError, typeKey, type Entry } from '../store/index.js';
import type { ServerConfig } from './config.js';

type Requester = 'anonymous' | 'self' | 'otherUser' | 'admin';
export type Right = 'readEntry' | 'readPassword' | 'readPolicyState' | 'writeEntry' | 'writePassword';
/** The rights that guard some attributes of an entry readable as a whole. */
type AttributeReadRight = Extract<Right, 'readPassword' | 'readPolicyState'>;

/** Yes, unless the server runs with --no-anonymous-read. */
const ANONYMOUS_READ = 'unless --no-anonymous-read';
type Rule = boolean | typeof ANONYMOUS_READ;

export const ACCESS: Readonly<Record<Requester, Readonly<Record<Right, Rule>>>> = {
  //           read entry                 read userPassword    read policy state       write entry        write userPassword
  anonymous: { readEntry: ANONYMOUS_READ, readPassword: false, readPolicyState: false, writeEntry: false, writePassword: false },
  self:      { readEntry: true,           readPassword: true,  readPolicyState: true,  writeEntry: false, writePassword: true },
  otherUser: { readEntry: true,           readPassword: false, readPolicyState: false, writeEntry: false, writePassword: false },
  admin:     { readEntry: true,           readPassword: true,  readPolicyState: true,  writeEntry: true,  writePassword: true },
};

/** Who is bound on the connection (a Session is one). */
export interface Identity {
  readonly isAdmin: boolean;
  /** The bound DN, normalized ('' when anonymous). */
  readonly normalizedDn: string;
}

/** The row of the table: the identity as seen from the entry (its normalized DN). */
function requesterOf(identity: Identity, entryNormalizedDn: string): Requester {
  if (identity.isAdmin) return 'admin';
  if (identity.normalizedDn === '') return 'anonymous';
  return identity.normalizedDn === entryNormalizedDn ? 'self' : 'otherUser';
}

export function allowed(identity: Identity, config: Pick<ServerConfig, 'anonymousRead'>, entryNormalizedDn: string, right: Right): boolean {
  const rule = ACCESS[requesterOf(identity, entryNormalizedDn)][right];
  return rule === ANONYMOUS_READ ? config.anonymousRead : rule;
}

/** The right reading this attribute needs besides readEntry, if any: userPassword's, or the policy state's. */
export function readRightFor(attribute: string): AttributeReadRight | undefined {
  const type = attributeType(attribute);
  if (type.key === 'userpassword') return 'readPassword';
  return type.policyState ? 'readPolicyState' : undefined;
}

/** Which attributes of an entry one requester may see: return, filter on, compare. */
export interface Readable {
  /** Every attribute (nothing to leave out). */
  readonly all: boolean;
  /** May it see this attribute (any name, alias, OID or options)? */
  attribute(description: string): boolean;
}

function readableBy(requester: Requester): Readable {
  const rights = ACCESS[requester];
  const guarded: readonly AttributeReadRight[] = ['readPassword', 'readPolicyState'];
  return {
    all: guarded.every((right) => rights[right] === true),
    attribute: (description) => {
      const right = readRightFor(description);
      return right === undefined || rights[right] === true;
    },
  };
}

const READABLE: Readonly<Record<Requester, Readable>> = {
  anonymous: readableBy('anonymous'),
  self: readableBy('self'),
  otherUser: readableBy('otherUser'),
  admin: readableBy('admin'),
};

/** Whether readable() answers differently from one entry to another for this identity: only for a user (its own entry is self). */
export function readableDependsOnEntry(identity: Identity): boolean {
  return !identity.isAdmin && identity.normalizedDn !== '';
}

/** What the identity may see of this entry (given that it may read the entry: readEntry). */
export function readable(identity: Identity, entryNormalizedDn: string): Readable {
  return READABLE[requesterOf(identity, entryNormalizedDn)];
}

/**
 * What a filter may test (a search's, an assertion control's): the attributes the viewer may see,
 * so that no filter can probe a hash or tell a locked account (without the right, the entry
 * looks as if it lacked them).
 */
export function filterView(entry: Entry, view: Readable): Entry {
  if (view.all) return entry;
  return { dn: entry.dn, attributes: entry.attributes.filter((attribute) => view.attribute(attribute.name)) };
}

/** The right a write of this attribute needs. */
export function writeRightFor(attribute: string): Right {
  return typeKey(attribute) === 'userpassword' ? 'writePassword' : 'writeEntry';
}

const REFUSALS: Readonly<Record<Right, string>> = {
  readEntry: 'anonymous read is disabled',
  readPassword: 'userPassword may not be read',
  readPolicyState: 'the password policy state (pwdAccountLockedTime, pwdFailureTime, pwdChangedTime) may not be read',
  writeEntry: 'only the admin may change entries; a user may change only its own userPassword',
  writePassword: 'only the admin may set another entry\'s userPassword',
};

/** Throws insufficientAccessRights unless the table allows it. */
export function requireAccess(identity: Identity, config: Pick<ServerConfig, 'anonymousRead'>, entryNormalizedDn: string, right: Right): void {
  if (allowed(identity, config, entryNormalizedDn, right)) return;
  const anonymousWrite = identity.normalizedDn === '' && !identity.isAdmin && (right === 'writeEntry' || right === 'writePassword');
  throw new DirectoryError('insufficientAccessRights', anonymousWrite ? 'anonymous clients may only bind and read' : REFUSALS[right]);
}

/** `--monitor-access`: who may read cn=Monitor. */
export type MonitorAccess = 'anonymous' | 'users' | 'admin';
export const MONITOR_ACCESS_CHOICES: readonly MonitorAccess[] = ['anonymous', 'users', 'admin'];

type MonitorReader = 'anonymous' | 'user' | 'admin';
/** May the reader read cn=Monitor, and whose bound DNs does it see in cn=Connections (its own connections' only, or all)? */
interface MonitorRule {
  readonly read: boolean;
  readonly boundDns: 'own' | 'all';
}

export const MONITOR_ACCESS: Readonly<Record<MonitorAccess, Readonly<Record<MonitorReader, MonitorRule>>>> = {
  //           anonymous                             a user                                the admin
  admin:     { anonymous: { read: false, boundDns: 'own' }, user: { read: false, boundDns: 'own' }, admin: { read: true, boundDns: 'all' } },
  users:     { anonymous: { read: false, boundDns: 'own' }, user: { read: true, boundDns: 'own' },  admin: { read: true, boundDns: 'all' } },
  anonymous: { anonymous: { read: true, boundDns: 'own' },  user: { read: true, boundDns: 'own' },  admin: { read: true, boundDns: 'all' } },
};

/** The rule for this identity under this --monitor-access. */
export function monitorRule(identity: Identity, access: MonitorAccess): MonitorRule {
  const reader: MonitorReader = identity.isAdmin ? 'admin' : identity.normalizedDn === '' ? 'anonymous' : 'user';
  return MONITOR_ACCESS[access][reader];
}

const MONITOR_REFUSALS: Readonly<Record<MonitorAccess, string>> = {
  admin: 'cn=Monitor may be read by the admin only (--monitor-access admin)',
  users: 'cn=Monitor may be read by bound users and the admin only (--monitor-access users)',
  anonymous: '',
};

/** Throws insufficientAccessRights unless the identity may read cn=Monitor; the rule otherwise. */
export function requireMonitorAccess(identity: Identity, access: MonitorAccess): MonitorRule {
  const rule = monitorRule(identity, access);
  if (!rule.read) throw new DirectoryError('insufficientAccessRights', MONITOR_REFUSALS[access]);
  return rule;
}
