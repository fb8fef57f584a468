/**
 * Search: base, one, sub and children scopes over the store, candidates narrowed by an index
 * when the filter allows, every candidate checked by our own filter evaluator, attributes
 * selected per request, size and time limits (client's and server's), simple paged results,
 * and abandon. Membership items of the filter (memberOf, in-chain) are resolved first
 * (filter/membership.ts); memberOf's values are computed for the entries that need them. With
 * the assertion control, the base entry must match it (assertionFailed), on every page of a
 * paged search.
 */
import { closeSource, KEEP_NONE, normalizeDn, normalizedDnOf, parseDn, SUBSCHEMA_KEY, type Entry, type EntryRecord, type KeepName, type RecordSource } from '../../store/index.js';
import { ResultCode, encodeSlicedSearchEntry } from '../../protocol/index.js';
import { filterReads, indexHint, matcher, mentionsAttribute, needsMemberOfValues, resolveMemberships, withinHint, type MatchContext, type Memberships, type Truth } from '../filter/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import { computedAttributes, parseSelection, sendsAttribute, wantsComputed, type Selection } from '../attributes.js';
import { filterView, readable, readableDependsOnEntry, requireAccess } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { Abandoned } from '../errors.js';
import { pagingOf, pagedReply, type Paging } from './search-paging.js';
import type { Matched } from '../net/paged-searches.js';
import { rootDse } from './root-dse.js';
import { subschema } from './subschema.js';
import { oversizedFilter } from './filter-cap.js';
import { searchBase } from './search-base.js';
import { entryKeyOf } from './entry-key.js';
import { inMonitor, monitor } from './monitor.js';
import { memberOfValues } from '../member-of.js';
import { assertionOf, requireAssertion } from '../assertion.js';

/** The base's normalized DN when it is cn=Monitor or below (--monitor-access decides who reads it), else undefined. */
function monitorKeyOf(base: string): string | undefined {
  if (!/monitor/i.test(base)) return undefined;
  const key = normalizeDn(parseDn(base));
  return inMonitor(key) ? key : undefined;
}

/** The smaller of the client's limit and the server's, 0 meaning none. */
function effectiveLimit(client: number, server: number): number {
  if (client === 0) return server;
  if (server === 0) return client;
  return Math.min(client, server);
}

interface Walk {
  readonly request: SearchRequest;
  readonly context: OperationContext;
  readonly selection: Selection;
  readonly baseKey: string;
  readonly sizeLimit: number;
  readonly deadline: number;
  readonly needsSubordinates: boolean;
  /** Each entry's normalized DN is needed: to leave out the base (children scope), to tell a user its own entry (access.ts). */
  readonly needsEntryDn: boolean;
  /** The filter's membership items, resolved; and whether entries need memberOf's values (asked for, or filtered on otherwise). */
  readonly memberships: Memberships;
  readonly needsMemberOf: boolean;
  /** The filter's terms (and the membership probes per entry), and how many entries x terms the search may test (0: no budget). */
  readonly terms: number;
  readonly budget: number;
  /** The filter, compiled for this search (matcher). */
  readonly test: (entry: Entry, context: MatchContext) => Truth;
  /** The attributes the filter reads: the only ones decoded to test an entry (undefined: all). */
  readonly filterReads: KeepName | undefined;
}

/** What a walk has done so far: its cost (entries examined x filter terms), and when its slice of the thread began. */
interface Progress {
  cost: number;
  sliceStart: number;
}

/**
 * Before the next candidate: stops when abandoned, over the cost budget or past the time limit
 * (a reply). Synchronous: an await per candidate costs a promise each.
 */
function pace(walk: Walk, progress: Progress, sent: number): Reply | undefined {
  const { context } = walk;
  if (context.signal.aborted) throw new Abandoned();
  if (walk.deadline && performance.now() > walk.deadline) return { code: ResultCode.timeLimitExceeded, entries: sent };
  progress.cost += walk.terms;
  if (walk.budget && progress.cost > walk.budget) {
    const message = `administrative limit exceeded: the filter's ${walk.terms} terms on the entries examined passed the search's cost budget of ${walk.budget} (--max-search-cost)`;
    return { code: ResultCode.adminLimitExceeded, message, entries: sent };
  }
  return undefined;
}

/** Lets the thread turn when this search's slice of it is used up (scheduler.ts). */
async function yieldTurn(walk: Walk, progress: Progress): Promise<void> {
  const { context } = walk;
  await context.server.scheduler.turn(context.session.id);
  if (context.signal.aborted) throw new Abandoned();
  progress.sliceStart = performance.now();
}

/**
 * The entry's answer, copied from its record's bytes: only its DN and the attributes sent are
 * read. Undefined when the socket took it; else a promise to wait on (context.send).
 */
function sendEntry(walk: Walk, { found, hasSubordinates, memberOf, readable }: Matched): Promise<void> | undefined {
  const { context, request, selection } = walk;
  const computed = computedAttributes(found.dn, selection, { typesOnly: request.typesOnly, hasSubordinates, memberOf });
  const sliced = found.slices(selection.storedNone ? KEEP_NONE : (name) => sendsAttribute(selection, readable, name));
  return context.send(encodeSlicedSearchEntry(request.messageId, sliced, computed, request.typesOnly));
}

/** The entry's dnKey when the filter's memberships or its memberOf values need it. */
function keyFor(walk: Walk, found: EntryRecord): string | undefined {
  return walk.memberships.tests.size > 0 || walk.needsMemberOf ? (found.key ?? entryKeyOf(found.dn)) : undefined;
}

/**
 * The entry with its hasSubordinates and memberOf (when needed) if it matches the search, else
 * undefined; synchronous unless one of those is needed (a promise per entry otherwise).
 */
function check(walk: Walk, found: EntryRecord): Matched | undefined | Promise<Matched | undefined> {
  const key = keyFor(walk, found);
  const normalized = dnOf(walk, found, key);
  if (walk.request.scope === 'children' && normalized === walk.baseKey) return undefined;
  const seen = { found, key, normalized };
  if (!walk.needsSubordinates && !walk.needsMemberOf) return tested(walk, seen, undefined, undefined);
  return checkComputed(walk, seen);
}

/** An entry being checked: its record, its dnKey (keyFor) and its normalized DN (dnOf). */
interface Seen {
  readonly found: EntryRecord;
  readonly key: string | undefined;
  readonly normalized: string | undefined;
}

async function checkComputed(walk: Walk, seen: Seen): Promise<Matched | undefined> {
  const { found, key } = seen;
  const hasSubordinates = walk.needsSubordinates ? await walk.context.server.store.hasChildren(found.dn) : undefined;
  const memberOf = walk.needsMemberOf ? await memberOfValues(walk.context.server, key!, found.dn) : undefined;
  return tested(walk, seen, hasSubordinates, memberOf);
}

/** The entry's normalized DN when access or the children scope look at it (needsEntryDn), else undefined. */
function dnOf(walk: Walk, found: EntryRecord, key: string | undefined): string | undefined {
  if (!walk.needsEntryDn) return undefined;
  return key !== undefined ? normalizedDnOf(key) : normalizeDn(found.dn);
}

/** The filter's answer on the entry as its viewer may see it, with the computed values given. */
function tested(walk: Walk, { found, key, normalized }: Seen, hasSubordinates: boolean | undefined, memberOf: Buffer[] | undefined): Matched | undefined {
  // Without needsEntryDn, readable() does not look at the DN (the admin, anonymous clients).
  const view = readable(walk.context.session, normalized ?? '');
  const context = { hasSubordinates, memberOf, ...(key !== undefined && { memberships: { tests: walk.memberships.tests, key } }) };
  const entry = walk.filterReads ? found.project(walk.filterReads) : found.entry();
  const match = walk.test(filterView(entry, view), context) === true;
  return match ? { found, hasSubordinates, memberOf, readable: view } : undefined;
}

/**
 * Sends matching entries until the source ends, a limit is hit, or the page is full. The source
 * is closed on every way out (its LevelDB iterator with it), except when a paged search keeps it
 * for the next page.
 */
async function walkEntries(walk: Walk, source: RecordSource, paging: Paging | undefined): Promise<Reply> {
  let kept = false;
  try {
    let sent = 0;
    for (const matched of paging?.carried ?? []) {
      await sendEntry(walk, matched);
      sent += 1;
    }
    const progress: Progress = { cost: paging?.costBefore ?? 0, sliceStart: performance.now() };
    // Iterated by hand: leaving a for-await loop would close the source, which a paged search keeps.
    for (;;) {
      const step = source.next();
      const next = step instanceof Promise ? await step : step;
      if (next.done) break;
      const stop = pace(walk, progress, sent);
      if (stop) return stop;
      if (walk.context.server.scheduler.due(progress.sliceStart)) await yieldTurn(walk, progress);
      const checked = check(walk, next.value);
      const matched = checked instanceof Promise ? await checked : checked;
      if (!matched) continue;
      if (paging?.totalLimit && paging.sentBefore + sent >= paging.totalLimit) {
        return { code: ResultCode.sizeLimitExceeded, entries: sent };
      }
      if (paging && sent >= paging.size) {
        kept = true;
        return pagedReply(walk.context, paging, { source, next: matched }, sent, progress.cost);
      }
      if (walk.sizeLimit && sent >= walk.sizeLimit) return { code: ResultCode.sizeLimitExceeded, entries: sent };
      const sending = sendEntry(walk, matched);
      if (sending) await sending;
      sent += 1;
    }
    return paging ? pagedReply(walk.context, paging, undefined, sent, progress.cost) : { code: ResultCode.success, entries: sent };
  } finally {
    const closing = kept ? undefined : closeSource(source);
    if (closing) await closing;
  }
}

export async function search(request: SearchRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  if (request.invalid) return { code: ResultCode.protocolError, message: request.invalid };
  const refusal = oversizedFilter(request, session, server.config.limits);
  if (refusal) return refusal;
  if (request.base === '' && request.scope === 'base') return rootDse(request, context);
  const monitorBase = monitorKeyOf(request.base);
  if (monitorBase !== undefined) return monitor(request, context, monitorBase);
  requireAccess(session, server.config, '', 'readEntry');
  const { dn: base, normalized: baseKey, key: baseDnKey } = searchBase(request.base);
  if (baseKey === SUBSCHEMA_KEY && request.scope === 'base') return subschema(request, context); // other scopes: not stored (32), as in OpenLDAP
  if (base.length === 0) return { code: ResultCode.noSuchObject, message: 'search a naming context (see the root DSE)' };
  const assertion = assertionOf(request);
  if (assertion) await requireAssertion(assertion, await server.store.require(base), session, () => server.store.hasChildren(base));
  const selection = parseSelection(request.attributes);
  const limits = server.config.limits;
  const timeLimit = effectiveLimit(request.timeLimit, session.isAdmin ? 0 : limits.timeLimit);
  const sizeLimit = effectiveLimit(request.sizeLimit, session.isAdmin ? 0 : limits.sizeLimit);
  const pagedTotal = effectiveLimit(request.sizeLimit, session.isAdmin ? 0 : limits.pagedSizeLimit ?? limits.sizeLimit);
  const paging = pagingOf(request, context, { pageLimit: sizeLimit, totalLimit: pagedTotal });
  if (paging && 'code' in paging) return paging;
  const resolving = resolveMemberships(request.filter, server.store, { nested: server.config.memberOfNested === true, maxGroups: limits.maxNestedGroups });
  const resolved = resolving instanceof Promise ? await resolving : resolving;
  // A resumed page walks its first page's source (no hint: its groups may have changed since, so
  // every entry is probed); a base search reads the base whatever the hint, and probes it.
  const hint = paging?.resumed ? undefined : indexHint(request.filter, server.store.indexed, resolved.hints);
  const memberships = request.scope === 'base' ? resolved : withinHint(resolved, hint);
  const walk: Walk = {
    request, context, selection, baseKey, sizeLimit: paging ? 0 : sizeLimit,
    deadline: timeLimit ? performance.now() + timeLimit * 1000 : 0,
    needsSubordinates: wantsComputed(selection, 'hasSubordinates') || mentionsAttribute(request.filter, 'hasSubordinates'),
    needsEntryDn: request.scope === 'children' || readableDependsOnEntry(session),
    memberships, needsMemberOf: wantsComputed(selection, 'memberOf') || needsMemberOfValues(request.filter, memberships),
    terms: request.filterTerms + memberships.probes, budget: session.isAdmin ? 0 : limits.maxSearchCost,
    test: matcher(request.filter),
    filterReads: filterReads(request.filter),
  };
  if (paging?.resumed) return walkEntries(walk, paging.resumed, paging);

  const missing = server.store.requireExists(base, '', baseDnKey);
  if (missing) await missing;
  const scope = request.scope === 'children' ? 'sub' : request.scope;
  const source = server.store.searchRecords(baseDnKey, scope, hint);
  return await walkEntries(walk, source, paging); // awaited: an async function returning a promise costs two more turns of the microtask queue
}
