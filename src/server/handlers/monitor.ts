/**
 * Searches of cn=Monitor (read-only): the subtree is built from a snapshot of the counters at
 * each search (monitor/tree.ts), then searched like stored entries: every scope, any filter,
 * attributes selected as for any entry (the counters are operational, as in OpenLDAP: `+` or
 * by name), the client's size limit, and simple paged results answered in one page. Who may
 * read it is --monitor-access (access.ts, MONITOR_ACCESS).
 */
import { DirectoryError, normalizeDn, type Entry } from '../../store/index.js';
import { ResultCode, encodeSearchEntry, PAGED_RESULTS_OID } from '../../protocol/index.js';
import { matches } from '../filter/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import { parseSelection, selectAttributes } from '../attributes.js';
import { requireMonitorAccess, type Readable } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { takeSnapshot } from '../monitor/snapshot.js';
import { MONITOR_DN, MONITOR_KEY, monitorTree } from '../monitor/tree.js';
import { requestControl } from '../controls.js';
import { onePage } from './search-paging.js';
import { requireMadeEntryAssertion } from './single-entry.js';

/** Nothing in cn=Monitor is held back attribute by attribute (hidden bound DNs are left out of the snapshot). */
const EVERYTHING: Readable = { all: true, attribute: () => true };

/** Is this normalized DN cn=Monitor or below it? */
export function inMonitor(normalizedDn: string): boolean {
  return normalizedDn === MONITOR_KEY || normalizedDn.endsWith(`,${MONITOR_KEY}`);
}

const parentOf = (key: string): string => key.slice(key.indexOf(',') + 1);

function inScope(key: string, base: string, scope: SearchRequest['scope']): boolean {
  switch (scope) {
    case 'base': return key === base;
    case 'one': return key !== base && parentOf(key) === base;
    case 'children': return key.endsWith(`,${base}`);
    default: return key === base || key.endsWith(`,${base}`);
  }
}

interface Keyed {
  readonly entry: Entry;
  readonly key: string;
}

export async function monitor(request: SearchRequest, context: OperationContext, baseKey: string): Promise<Reply> {
  const { session, server } = context;
  requireMonitorAccess(session, server.config.monitorAccess ?? 'admin');
  const tree: Keyed[] = monitorTree(await takeSnapshot(server, session)).map((entry) => ({ entry, key: normalizeDn(entry.dn) }));
  const base = tree.find(({ key }) => key === baseKey);
  if (!base) throw new DirectoryError('noSuchObject', '', MONITOR_DN);
  const parents = new Set(tree.map(({ key }) => parentOf(key)));
  requireMadeEntryAssertion(request, base.entry, { hasSubordinates: parents.has(baseKey) });
  const selection = parseSelection(request.attributes);
  let sent = 0;
  for (const { entry, key } of tree) {
    if (!inScope(key, baseKey, request.scope)) continue;
    const hasSubordinates = parents.has(key);
    if (matches(request.filter, entry, { hasSubordinates }) !== true) continue;
    if (request.sizeLimit > 0 && sent >= request.sizeLimit) return { code: ResultCode.sizeLimitExceeded, entries: sent };
    const attributes = selectAttributes(entry, selection, { readable: EVERYTHING, typesOnly: request.typesOnly, hasSubordinates });
    await context.send(encodeSearchEntry(request.messageId, entry.dn, attributes));
    sent += 1;
  }
  return requestControl(request, PAGED_RESULTS_OID) ? onePage(sent) : { code: ResultCode.success, entries: sent };
}
