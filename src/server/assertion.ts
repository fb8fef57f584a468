/**
 * The assertion control (RFC 4528, 1.3.6.1.1.12): the operation proceeds only if its filter is
 * TRUE on the operation's target entry; FALSE or Undefined answers assertionFailed (122), with
 * no message (as slapd), and nothing is changed. The target: the entry compared, deleted,
 * modified or renamed, a search's base object (the root DSE for a root DSE search), and on add
 * the entry as it would be stored (as OpenLDAP tests it). Writes test the entry under its lock,
 * as the write finds it (the `check` of src/store/writes.ts). The filter sees what a search by the
 * same requester sees (filterView in access.ts): it cannot probe userPassword or the policy
 * state. A missing or malformed value is a protocolError (2).
 */
import { DirectoryError, normalizeDn, type Entry } from '../store/index.js';
import { ASSERTION_OID, decodeAssertion } from '../protocol/index.js';
import type { Request } from '../protocol/types.js';
import { matches, mentionsAttribute, type Filter } from './filter/index.js';
import { filterView, readable, type Identity } from './access.js';
import { requestControl } from './controls.js';

/** The request's assertion, if it carries the control. */
export function assertionOf(request: Request): Filter | undefined {
  const control = requestControl(request, ASSERTION_OID);
  return control && decodeAssertion(control.value);
}

/** Whether the entry has children, asked only when the assertion names hasSubordinates. */
export type Subordinates = () => boolean | Promise<boolean>;

/** Throws assertionFailed unless the assertion is TRUE on the entry as this requester may see it. */
export async function requireAssertion(assertion: Filter, entry: Entry, identity: Identity, subordinates: Subordinates): Promise<void> {
  const hasSubordinates = mentionsAttribute(assertion, 'hasSubordinates') ? await subordinates() : undefined;
  const view = filterView(entry, readable(identity, normalizeDn(entry.dn)));
  if (matches(assertion, view, { hasSubordinates }) !== true) throw new DirectoryError('assertionFailed', '');
}
