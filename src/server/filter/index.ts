/** Search filters: evaluation (three-valued), the index hint for the store, and RFC 4515 text. */
export type { Filter } from '../../protocol/filter.js';
export { matches, matcher, compileFilter, type MatchContext, type FilterTest, type Truth } from './evaluate.js';
export { indexHint } from './hint.js';
export { filterToString, escapeFilterValue } from './format.js';
export { filterReads, mentionsAttribute } from './attributes.js';
export { matchingRule, MATCHING_RULES, type MatchingRule } from './rules.js';
export * as build from './build.js';
export { resolveMemberships, withinHint, needsMemberOfValues, IN_CHAIN, NO_MEMBERSHIPS, type Memberships, type MembershipTest } from './membership.js';
