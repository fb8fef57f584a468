/** What the server is told at start-up (flags of `leveldap serve`), with the documented defaults. */
import type { MonitorAccess } from './access.js';
import {
  DEFAULT_DN_LIMITS, DEFAULT_MAX_NESTED_GROUPS, DEFAULT_MAX_REFINT_GROUPS, DEFAULT_MAX_SUBTREE_RENAME, type DnLimits,
} from '../store/index.js';

export interface Limits {
  /** Entries a non-admin search may return (0 = no limit). OpenLDAP's default is 500. */
  readonly sizeLimit: number;
  /**
   * Entries a non-admin paged search may return over all its pages (0 = no limit; undefined:
   * the size limit). OpenLDAP's size.prtotal defaults to the hard size limit.
   */
  readonly pagedSizeLimit?: number;
  /** Seconds a non-admin search may run (0 = no limit). OpenLDAP's default is 3600. */
  readonly timeLimit: number;
  /** Largest LDAP message accepted before a successful bind, and after. */
  readonly maxMessageBytesAnonymous: number;
  readonly maxMessageBytesBound: number;
  /** Operations in progress per connection before reading from it pauses. */
  readonly maxOutstanding: number;
  /** Idle connections are closed after this many seconds (0 = never). */
  readonly idleTimeout: number;
  /** The same, sooner, for a connection not bound to a DN (never bound, or bound anonymously). */
  readonly anonymousIdleTimeout: number;
  /** Connections open at once on each listener (LDAP, LDAPS), over every thread. */
  readonly maxConnections: number;
  /** Of those, the last this many are kept for the admin: such a connection must bind as the admin first. */
  readonly reservedConnections: number;
  /** Connections open at once from one client address. */
  readonly maxConnectionsPerAddress: number;
  /** The most terms (and/or/not and assertions) in a search filter from an anonymous client, and from a user (0: no cap; the admin has none). */
  readonly maxFilterTermsAnonymous: number;
  readonly maxFilterTerms: number;
  /** The cost budget of a non-admin search: entries examined x filter terms (0: none). */
  readonly maxSearchCost: number;
  /** Simple-paged-results searches a connection may keep open at once. */
  readonly maxPagedSearches: number;
  /** The longest (UTF-8 bytes) and deepest DN a request may name: checked before it is parsed. */
  readonly maxDnLength: number;
  readonly maxDnRdns: number;
  /** Groups one walk through nested groups may expand (nested memberOf, in-chain filters; 0: no cap). */
  readonly maxNestedGroups: number;
  /** Groups one delete or modify DN may update for referential integrity (0: no cap). */
  readonly maxRefintGroups: number;
  /** Entries one modify DN may move: the renamed entry and everything below it (0: no cap). */
  readonly maxSubtreeRename: number;
}

export const DEFAULT_LIMITS: Limits = {
  sizeLimit: 500,
  timeLimit: 3600,
  maxMessageBytesAnonymous: 262_143,
  maxMessageBytesBound: 4_194_303,
  maxOutstanding: 32,
  idleTimeout: 900,
  anonymousIdleTimeout: 120,
  maxConnections: 4096,
  reservedConnections: 16,
  maxConnectionsPerAddress: 512,
  maxFilterTermsAnonymous: 256,
  maxFilterTerms: 4096,
  maxSearchCost: 5_000_000,
  maxPagedSearches: 8,
  maxDnLength: DEFAULT_DN_LIMITS.maxBytes,
  maxDnRdns: DEFAULT_DN_LIMITS.maxRdns,
  maxNestedGroups: DEFAULT_MAX_NESTED_GROUPS,
  maxRefintGroups: DEFAULT_MAX_REFINT_GROUPS,
  maxSubtreeRename: DEFAULT_MAX_SUBTREE_RENAME,
};

export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  /** The naming context announced in the root DSE (besides those stored). */
  readonly baseDn: string;
  readonly adminDn: string;
  /** May an anonymous client read entries (it may always bind)? */
  readonly anonymousRead: boolean;
  readonly limits: Limits;
  /** Certificate and key: StartTLS on the LDAP port, and LDAPS when a port is given. */
  readonly tls?: TlsConfig;
  /** Refuse simple binds with a password (confidentialityRequired) on a connection without TLS. */
  readonly requireTlsForBinds?: boolean;
  /** memberOf lists every group reached through nested groups, and `(memberOf=G)` matches their members (--memberof-nested). */
  readonly memberOfNested?: boolean;
  /** Who may read cn=Monitor (--monitor-access; the admin only by default). */
  readonly monitorAccess?: MonitorAccess;
}

export interface TlsConfig {
  /** The server's certificate (chain) and private key, PEM. */
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Where to listen for LDAPS (TLS from the first byte) on `host`; 0: any free port. */
  readonly ldapsPort?: number;
}

/** The DN limits (--max-dn-length, --max-dn-rdns) as the DN parser takes them. */
export function dnLimitsOf(limits: Limits): DnLimits {
  return { maxBytes: limits.maxDnLength, maxRdns: limits.maxDnRdns };
}
