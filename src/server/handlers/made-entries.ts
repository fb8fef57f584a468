/**
 * Writes to the entries the server makes rather than stores, the root DSE and cn=Subschema:
 * refused before anything else is looked at, with OpenLDAP's codes and texts (its frontend's
 * add, modify, delete and modrdn), as a table.
 */
import { DirectoryError, SUBSCHEMA_KEY } from '../../store/index.js';
import type { ResultCodeName } from '../../protocol/result-codes.js';

type Write = 'add' | 'modify' | 'delete' | 'modifyDn';
type Refusal = readonly [ResultCodeName, string];

const REFUSALS: Readonly<Record<Write, { readonly root: Refusal; readonly subschema: Refusal }>> = {
  add: { root: ['entryAlreadyExists', 'root DSE already exists'], subschema: ['entryAlreadyExists', 'subschema subentry already exists'] },
  modify: { root: ['unwillingToPerform', 'modify upon the root DSE not supported'], subschema: ['unwillingToPerform', 'modification of subschema subentry not supported'] },
  delete: { root: ['unwillingToPerform', 'cannot delete the root DSE'], subschema: ['unwillingToPerform', 'cannot delete the subschema subentry'] },
  modifyDn: { root: ['unwillingToPerform', 'cannot rename the root DSE'], subschema: ['unwillingToPerform', 'cannot rename subschema subentry'] },
};

/** Throws the refusal of `write` when `normalized` (a normalized DN) names the root DSE or cn=Subschema. */
export function refuseMadeEntryWrite(write: Write, normalized: string): void {
  const made = normalized === '' ? 'root' : normalized === SUBSCHEMA_KEY ? 'subschema' : undefined;
  if (made === undefined) return;
  const [code, message] = REFUSALS[write][made];
  throw new DirectoryError(code, message);
}
