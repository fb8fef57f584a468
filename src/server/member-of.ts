/**
 * memberOf's values for an entry, computed at read time from the memberships the groups keep
 * (src/store/memberships.ts): the DNs of the groups naming it, and with --memberof-nested those
 * reached through nested groups too, nearest first. A walk past --max-nested-groups is cut
 * short there, with a warning in the server log (a filter on memberOf is refused instead:
 * filter/membership.ts).
 */
import type { Entry } from '../store/index.js';
import type { ServerContext } from './context.js';

export async function memberOfValues(server: ServerContext, key: string, dn: string): Promise<Buffer[]> {
  const { config, store, log } = server;
  const maxGroups = config.limits.maxNestedGroups;
  const walked = await store.memberships.groupsOf(key, config.memberOfNested === true, maxGroups);
  if (!walked.complete) {
    log.warn({ dn, groups: walked.found.length, maxNestedGroups: maxGroups },
      'memberOf cut short: following nested groups expands more than --max-nested-groups groups');
  }
  return walked.found.map((group) => Buffer.from(group.dn, 'utf8'));
}

/** The entry with its memberOf values (none: as it is). */
export function withMemberOf(entry: Entry, memberOf: readonly Buffer[]): Entry {
  return memberOf.length === 0 ? entry : { dn: entry.dn, attributes: [...entry.attributes, { name: 'memberOf', values: memberOf }] };
}
