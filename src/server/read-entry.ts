/**
 * The pre-read and post-read controls (RFC 4527, 1.3.6.1.1.13.1 and 1.3.6.1.1.13.2): the request
 * names attributes as a search does (`*`, `+`, `1.1`, names, none for all user attributes), the
 * response control holds the entry as a SearchResultEntry, with the attributes a search by the
 * same requester returns (selectAttributes in attributes.ts, access.ts: no userPassword or
 * policy state the requester may not read). Response controls are never critical.
 */
import { normalizeDn, type Entry } from '../store/index.js';
import { decodeAttributeSelection, encodeEntryValue, POST_READ_OID, PRE_READ_OID } from '../protocol/index.js';
import type { Control, Request } from '../protocol/types.js';
import { parseSelection, selectAttributes, wantsComputed, type Selection } from './attributes.js';
import { readable, type Identity } from './access.js';
import { requestControl } from './controls.js';

export type ReadOid = typeof PRE_READ_OID | typeof POST_READ_OID;

const NAMES: Readonly<Record<ReadOid, string>> = { [PRE_READ_OID]: 'preread', [POST_READ_OID]: 'postread' };

/** The attributes the request's pre-read or post-read control asks for, if it carries one its operation acts on. */
export function readSelectionOf(request: Request, oid: ReadOid): Selection | undefined {
  const control = requestControl(request, oid);
  return control && parseSelection(decodeAttributeSelection(control.value, NAMES[oid]));
}

/** Does the selection ask for hasSubordinates (which the server computes)? */
export function wantsSubordinates(selection: Selection | undefined): boolean {
  return selection !== undefined && wantsComputed(selection, 'hasSubordinates');
}

/** The response control: the entry as this requester may read it. */
export function readEntryControl(oid: ReadOid, entry: Entry, selection: Selection, identity: Identity, hasSubordinates?: boolean): Control {
  const attributes = selectAttributes(entry, selection, { readable: readable(identity, normalizeDn(entry.dn)), typesOnly: false, hasSubordinates });
  return { type: oid, critical: false, value: encodeEntryValue(entry.dn, attributes) };
}
