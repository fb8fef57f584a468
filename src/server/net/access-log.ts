/**
 * The access log: one structured line per operation, with what 389's access log says of it: the
 * connection, operation, message ID, DN (a search's base, scope, filter and requested
 * attributes), the controls sent (OID and criticality), the result code and, with a non-zero
 * one, the diagnostic message sent, the entries a search returned, a successful bind's stored
 * scheme and whether the verified-bind cache answered, and the time the operation waited in the
 * connection's queue (wtime) and ran (etime), in milliseconds. Credentials never appear: bind
 * passwords and control values are not logged, and userPassword values in filters are masked.
 * Nothing is built when the log level is above info.
 */
import type { Logger } from 'pino';
import { typeKey } from '../../store/index.js';
import { filterToString, type Filter } from '../filter/index.js';
import type { Request, SearchRequest } from '../../protocol/types.js';
import type { Reply } from '../context.js';
import type { Session } from './session.js';

const MASK = Buffer.from('***');
/** Longer DNs, filters and messages are cut in the log. */
const LOGGED_LENGTH = 512;
/** A search's requested attributes and a request's controls past these counts are left out (and counted). */
const LOGGED_ATTRIBUTES = 64;
const LOGGED_CONTROLS = 16;

const isPassword = (attribute: string | undefined): boolean => attribute === undefined || typeKey(attribute) === 'userpassword';

/**
 * An assertion with every value that could be a password replaced by ***: userPassword under
 * any name, alias, OID or option, and extensible matches that name no attribute.
 */
function maskPassword(filter: Filter): Filter {
  switch (filter.type) {
    case 'and': case 'or': case 'not': case 'present': return filter;
    case 'substrings':
      return isPassword(filter.attribute) ? { type: 'substrings', attribute: filter.attribute, initial: MASK, any: [] } : filter;
    default:
      return isPassword(filter.attribute) ? { ...filter, value: MASK } : filter;
  }
}

const cut = (text: string): string => (text.length > LOGGED_LENGTH ? `${text.slice(0, LOGGED_LENGTH)}...` : text);

/** The first `most` items, then "+N more" if any were left out. */
function firstOf<T>(items: readonly T[], most: number): (T | string)[] {
  return items.length > most ? [...items.slice(0, most), `+${items.length - most} more`] : [...items];
}

/** The filter's text, cut after LOGGED_LENGTH characters; a filter the decoder cut (too large, refused) ends in "..." too. */
function filterText(request: SearchRequest): string {
  const text = filterToString(request.filter, { maxLength: LOGGED_LENGTH, leaf: maskPassword });
  return request.filterCut === undefined || text.length > LOGGED_LENGTH ? text : `${text}...`;
}

function searchDetails(request: SearchRequest): Record<string, unknown> {
  return {
    base: cut(request.base), scope: request.scope, filter: filterText(request),
    attrs: firstOf(request.attributes, LOGGED_ATTRIBUTES).map(cut),
  };
}

function details(request: Request): Record<string, unknown> {
  switch (request.kind) {
    case 'bind': return { dn: cut(request.name), method: request.authentication.method };
    case 'search': return searchDetails(request);
    case 'compare': return { dn: cut(request.dn), attribute: cut(request.attribute) };
    case 'extended': return { oid: cut(request.oid) };
    case 'add': case 'delete': case 'modify': case 'modifyDn': return { dn: cut(request.dn) };
    default: return {};
  }
}

/** The controls sent with the request, without their values. */
function controlsSent(request: Request): Record<string, unknown> {
  if (request.controls.length === 0) return {};
  const controls = firstOf(request.controls, LOGGED_CONTROLS).map((control) => (typeof control === 'string' ? control : { oid: cut(control.type), critical: control.critical }));
  return { controls };
}

/** What the reply said beyond its code: a search's entries, the diagnostic message of a non-zero result, a bind's scheme and cache. */
function outcome(request: Request, reply: Reply): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (request.kind === 'search') fields.entries = reply.entries ?? 0;
  if (reply.code !== 0 && reply.message) fields.message = cut(reply.message);
  if (reply.scheme !== undefined) {
    fields.scheme = reply.scheme;
    fields.cached = reply.cached === true;
  }
  return fields;
}

/** How long an operation waited in its connection's queue, and ran (until its answer was written), in ms. */
export interface OperationTimes {
  readonly waited: number;
  readonly ran: number;
}

const millis = (value: number): number => Math.round(Math.max(0, value) * 1000) / 1000;

export function logOperation(log: Logger, session: Session, request: Request, reply: Reply, times: OperationTimes): void {
  if (!log.isLevelEnabled('info')) return;
  log.info({
    conn: session.id, op: request.kind, msgid: request.messageId, ...details(request), ...controlsSent(request),
    code: reply.code, ...outcome(request, reply), wtime: millis(times.waited), etime: millis(times.ran),
  }, 'operation');
}
