/** The simple paged results control (RFC 2696) on the search side: reading it and answering it. */
import { closeSource, DirectoryError, normalizeDn, type RecordSource } from '../../store/index.js';
import { ResultCode, decodePagedResults, encodePagedResults, PAGED_RESULTS_OID } from '../../protocol/index.js';
import { filterToString } from '../filter/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import type { OperationContext, Reply } from '../context.js';
import type { Matched } from '../net/paged-searches.js';
import { requestControl } from '../controls.js';

export interface Paging {
  /** Entries per page (the client's size, capped by the server's size limit). */
  readonly size: number;
  readonly signature: string;
  /** The iterator of the search this cookie continues. */
  readonly resumed?: RecordSource;
  readonly carried: readonly Matched[];
  /** Entries sent on earlier pages, and the limit over all pages (0: none; see PagedLimits). */
  readonly sentBefore: number;
  readonly totalLimit: number;
  /** The cost of the earlier pages (search.ts: the budget is for the whole search). */
  readonly costBefore: number;
}

function signatureOf(request: SearchRequest): string {
  return JSON.stringify([normalizeDn(request.base), request.scope, filterToString(request.filter), request.attributes, request.typesOnly]);
}

/** The limits of a paged search (0: none): entries per page, and over all its pages. */
interface PagedLimits {
  /** The search's size limit (client's and server's), which caps the page size. */
  readonly pageLimit: number;
  /** The client's size limit and the server's paged total (--paged-size-limit), the smaller. */
  readonly totalLimit: number;
}

/** The paging state of a search request: none, a new or resumed paged search, or a refusal. */
export function pagingOf(request: SearchRequest, context: OperationContext, limits: PagedLimits): Paging | Reply | undefined {
  const control = requestControl(request, PAGED_RESULTS_OID); // twice: protocolError
  if (!control) return undefined;
  const { size, cookie } = decodePagedResults(control.value ?? Buffer.alloc(0));
  const signature = signatureOf(request);
  const pageSize = limits.pageLimit > 0 ? Math.min(size, limits.pageLimit) : size;
  const { totalLimit } = limits;
  if (cookie.byteLength === 0) return size === 0 ? finished() : { size: pageSize, signature, carried: [], sentBefore: 0, totalLimit, costBefore: 0 };
  const open = context.session.paged.take(cookie);
  if (!open || open.signature !== signature) {
    if (open) void closeSource(open.entries);
    throw new DirectoryError('unwillingToPerform', 'paged results cookie is invalid');
  }
  if (size === 0) {
    void closeSource(open.entries);
    return finished();
  }
  return { size: pageSize, signature, resumed: open.entries, carried: open.carried, sentBefore: open.sentBefore, totalLimit, costBefore: open.costBefore };
}

function finished(): Reply {
  return onePage(0);
}

/** A paged search answered in one page (all `sent` entries): the control with an empty cookie. */
export function onePage(sent: number): Reply {
  return { code: ResultCode.success, entries: sent, controls: [pagedControl(Buffer.alloc(0))] };
}

function pagedControl(cookie: Buffer) {
  return { type: PAGED_RESULTS_OID, critical: false, value: encodePagedResults(0, cookie) };
}

/** The end of a page: a cookie to continue when more entries remain, an empty one when done. `cost`: the search's so far. */
export function pagedReply(
  context: OperationContext, paging: Paging, more: { source: RecordSource; next: Matched } | undefined, sent: number, cost: number,
): Reply {
  const cookie = more
    ? context.session.paged.keep({ signature: paging.signature, entries: more.source, carried: [more.next], sentBefore: paging.sentBefore + sent, costBefore: cost })
    : Buffer.alloc(0);
  return { code: ResultCode.success, entries: sent, controls: [pagedControl(cookie)] };
}
