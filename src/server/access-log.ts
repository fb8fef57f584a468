/**
 * The access log: one structured line per operation (connection, operation, DN, result code,
 * duration). Credentials never appear: bind passwords are not logged, and userPassword values in
 * filters and compares are masked.
 */
import type { Logger } from 'pino';
import { filterToString, type Filter } from './filter/index.js';
import type { Request } from './protocol/types.js';
import type { Reply } from './context.js';
import type { Session } from './session.js';

const MASK = Buffer.from('***');

/** The filter with every userPassword assertion value replaced by ***. */
export function maskPasswords(filter: Filter): Filter {
  switch (filter.type) {
    case 'and': case 'or': return { ...filter, filters: filter.filters.map(maskPasswords) };
    case 'not': return { ...filter, filter: maskPasswords(filter.filter) };
    case 'present': return filter;
    case 'substrings':
      return /^userpassword$/i.test(filter.attribute) ? { type: 'substrings', attribute: filter.attribute, initial: MASK, any: [] } : filter;
    default:
      return filter.attribute !== undefined && /^userpassword$/i.test(filter.attribute) ? { ...filter, value: MASK } : filter;
  }
}

function details(request: Request): Record<string, unknown> {
  switch (request.kind) {
    case 'bind': return { dn: request.name, method: request.authentication.method };
    case 'search': return { base: request.base, scope: request.scope, filter: filterToString(maskPasswords(request.filter)) };
    case 'compare': return { dn: request.dn, attribute: request.attribute };
    case 'extended': return { oid: request.oid };
    case 'add': case 'delete': case 'modify': case 'modifyDn': return { dn: request.dn };
    default: return {};
  }
}

export function logOperation(log: Logger, session: Session, request: Request, reply: Reply, millis: number): void {
  if (!log.isLevelEnabled('info')) return;
  log.info({
    conn: session.id, op: request.kind, msgid: request.messageId, ...details(request),
    code: reply.code, entries: reply.entries, ms: Math.round(millis * 100) / 100,
  }, 'operation');
}
