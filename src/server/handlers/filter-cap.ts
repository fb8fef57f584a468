/**
 * The cap on a search filter's size for whoever asks: --max-filter-terms-anonymous for an
 * anonymous client, --max-filter-terms for a user, none for the admin (0: no cap). A filter past
 * it is refused with adminLimitExceeded (11) before anything else. The connection decodes a
 * filter only up to the cap (DecodeOptions.keepFilterTerms), so the refusal of a huge filter
 * costs what the cap's worth of terms costs.
 */
import { ResultCode } from '../../protocol/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import type { Limits } from '../config.js';
import type { Reply } from '../context.js';
import type { Session } from '../net/session.js';

export interface FilterCap {
  readonly terms: number;
  readonly flag: string;
  readonly who: string;
}

/** The cap for the session as it is bound now; undefined when it has none. */
export function filterCap(session: Session, limits: Limits): FilterCap | undefined {
  if (session.isAdmin) return undefined;
  const cap = session.anonymous
    ? { terms: limits.maxFilterTermsAnonymous, flag: '--max-filter-terms-anonymous', who: 'anonymous clients' }
    : { terms: limits.maxFilterTerms, flag: '--max-filter-terms', who: 'users' };
  return cap.terms === 0 ? undefined : cap;
}

/** adminLimitExceeded (11) for a filter larger than the session may send, or cut by the decoder (never run). */
export function oversizedFilter(request: SearchRequest, session: Session, limits: Limits): Reply | undefined {
  const cap = filterCap(session, limits);
  const terms = request.filterTerms;
  if (request.filterCut === undefined && (cap === undefined || terms <= cap.terms)) return undefined;
  const allowed = cap === undefined ? 'the server decoded only part of it' : `${cap.who} may send at most ${cap.terms} (${cap.flag})`;
  return { code: ResultCode.adminLimitExceeded, message: `filter too large: ${terms} terms; ${allowed}` };
}
