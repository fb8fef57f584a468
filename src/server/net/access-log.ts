/**
 * The access log: one structured line per operation (connection, operation, DN, result code,
 * duration). Credentials never appear: bind passwords are not logged, and userPassword values in
 * filters and compares are masked.
 */
import type { Logger } from 'pino';
import { typeKey } from '../../store/index.js';
import { filterToString, type Filter } from '../filter/index.js';
import type { Request } from '../../protocol/types.js';
import type { Reply } from '../context.js';
import type { Session } from './session.js';

const MASK = Buffer.from('***');
/** Longer DNs and filters are cut in the log. */
const LOGGED_LENGTH = 512;

const isPassword = (attribute: string | undefined): boolean => attribute === undefined || typeKey(attribute) === 'userpassword';

/**
 * The filter with every value that could be a password replaced by ***: userPassword under any
 * name, alias, OID or option, and extensible matches that name no attribute.
 */
function maskPasswords(filter: Filter): Filter {
  switch (filter.type) {
    case 'and': case 'or': return { ...filter, filters: filter.filters.map(maskPasswords) };
    case 'not': return { ...filter, filter: maskPasswords(filter.filter) };
    case 'present': return filter;
    case 'substrings':
      return isPassword(filter.attribute) ? { type: 'substrings', attribute: filter.attribute, initial: MASK, any: [] } : filter;
    default:
      return isPassword(filter.attribute) ? { ...filter, value: MASK } : filter;
  }
}

const cut = (text: string): string => (text.length > LOGGED_LENGTH ? `${text.slice(0, LOGGED_LENGTH)}...` : text);

function details(request: Request): Record<string, unknown> {
  switch (request.kind) {
    case 'bind': return { dn: cut(request.name), method: request.authentication.method };
    case 'search': return { base: cut(request.base), scope: request.scope, filter: cut(filterToString(maskPasswords(request.filter))) };
    case 'compare': return { dn: cut(request.dn), attribute: cut(request.attribute) };
    case 'extended': return { oid: cut(request.oid) };
    case 'add': case 'delete': case 'modify': case 'modifyDn': return { dn: cut(request.dn) };
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
