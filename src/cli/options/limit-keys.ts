/**
 * The server's limits as `serve` flags and --config keys: one entry per limit, each a whole number
 * in a range, its key in the file the Limits field's name ("sizeLimit" for --size-limit).
 * limits.ts reads them; policy.ts leaves the keys to it.
 */
import { DEFAULT_LIMITS, type Limits } from '../../server/config.js'; // not server/index.js, which loads the whole server
import { DN_CEILING } from '../../store/index.js';

type NumericLimit = { [K in keyof Limits]-?: Limits[K] extends number | undefined ? K : never }[keyof Limits];

export interface LimitFlag {
  readonly flag: string;
  readonly key: NumericLimit;
  readonly describe: string;
  readonly min: number;
  readonly max: number;
}

const LARGE = 2 ** 31 - 1;

export const LIMIT_FLAGS: readonly LimitFlag[] = [
  { flag: 'size-limit', key: 'sizeLimit', min: 0, max: LARGE, describe: 'entries per search for non-admins (0: none)' },
  { flag: 'paged-size-limit', key: 'pagedSizeLimit', min: 0, max: LARGE, describe: 'entries a non-admin paged search may return over all its pages (default: --size-limit; 0: none)' },
  { flag: 'max-filter-terms-anonymous', key: 'maxFilterTermsAnonymous', min: 0, max: LARGE, describe: 'most terms (and/or/not and assertions) in a search filter from an anonymous client (adminLimitExceeded beyond; 0: no cap)' },
  { flag: 'max-filter-terms', key: 'maxFilterTerms', min: 0, max: LARGE, describe: 'the same for a bound user (the admin has no cap)' },
  { flag: 'max-search-cost', key: 'maxSearchCost', min: 0, max: Number.MAX_SAFE_INTEGER, describe: 'cost budget of a non-admin search: entries examined x filter terms (adminLimitExceeded beyond; 0: none)' },
  { flag: 'time-limit', key: 'timeLimit', min: 0, max: LARGE, describe: 'seconds per search for non-admins (0: none)' },
  { flag: 'idle-timeout', key: 'idleTimeout', min: 0, max: LARGE, describe: 'close idle connections after this many seconds (0: never)' },
  { flag: 'anonymous-idle-timeout', key: 'anonymousIdleTimeout', min: 0, max: LARGE, describe: 'close idle connections not bound to a DN after this many seconds (0: as --idle-timeout)' },
  { flag: 'max-connections', key: 'maxConnections', min: 1, max: LARGE, describe: 'connections at once' },
  { flag: 'reserved-connections', key: 'reservedConnections', min: 0, max: LARGE, describe: 'of --max-connections, the last this many are kept for the admin (such a connection must bind as the admin first)' },
  { flag: 'max-connections-per-address', key: 'maxConnectionsPerAddress', min: 1, max: LARGE, describe: 'connections at once from one client address' },
  { flag: 'max-dn-length', key: 'maxDnLength', min: 1, max: DN_CEILING.maxBytes, describe: 'longest DN a request may name, in UTF-8 bytes (invalidDNSyntax beyond)' },
  { flag: 'max-dn-rdns', key: 'maxDnRdns', min: 1, max: DN_CEILING.maxRdns, describe: 'most RDNs a DN in a request may have (invalidDNSyntax beyond)' },
  { flag: 'max-nested-groups', key: 'maxNestedGroups', min: 0, max: LARGE, describe: 'groups one walk through nested groups may expand: nested memberOf, in-chain filters (adminLimitExceeded for a filter beyond; 0: no cap)' },
  { flag: 'max-refint-groups', key: 'maxRefintGroups', min: 0, max: LARGE, describe: 'groups one delete or modify DN may update for referential integrity (adminLimitExceeded beyond; 0: no cap)' },
  { flag: 'max-subtree-rename', key: 'maxSubtreeRename', min: 0, max: LARGE, describe: 'entries one modify DN may move: the renamed entry and everything below it (unwillingToPerform beyond; 0: no cap)' },
];

/** The --config file's limit keys. */
export const LIMIT_KEYS: readonly string[] = LIMIT_FLAGS.map(({ key }) => key);

/** A limit's default, shown in --help (none for those whose default follows another flag). */
export const defaultOf = (limit: LimitFlag): number | undefined => DEFAULT_LIMITS[limit.key];
