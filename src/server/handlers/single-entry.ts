/**
 * The answer to a base search of an entry the server makes rather than stores (the root DSE,
 * cn=Subschema): assertionFailed if the search's assertion control does not hold for it (RFC
 * 4528, as OpenLDAP tests it), else the entry if it matches the filter, with its user attributes
 * for '*' (or none named), its operational ones for '+', and any asked for by name.
 */
import { attributeType, DirectoryError, typeKey, type Entry } from '../../store/index.js';
import { ResultCode, encodeSearchEntry } from '../../protocol/index.js';
import { matches } from '../filter/index.js';
import { assertionOf } from '../assertion.js';
import type { SearchRequest } from '../../protocol/types.js';
import { parseSelection, type Selection } from '../attributes.js';
import type { OperationContext, Reply } from '../context.js';

function wanted(name: string, selection: Selection): boolean {
  if (selection.named.has(typeKey(name))) return true;
  return attributeType(name).operational ? selection.allOperational : selection.allUser;
}

export async function answerWithEntry(request: SearchRequest, context: OperationContext, entry: Entry): Promise<Reply> {
  requireMadeEntryAssertion(request, entry);
  if (matches(request.filter, entry) !== true) return { code: ResultCode.success, entries: 0 };
  const selection = parseSelection(request.attributes);
  const attributes = entry.attributes.filter((attribute) => wanted(attribute.name, selection))
    .map((attribute) => (request.typesOnly ? { name: attribute.name, values: [] } : attribute));
  await context.send(encodeSearchEntry(request.messageId, entry.dn, attributes));
  return { code: ResultCode.success, entries: 1 };
}

/** Throws assertionFailed when the request carries an assertion that `entry` (made by the server, readable whole) does not satisfy. */
export function requireMadeEntryAssertion(request: SearchRequest, entry: Entry, options?: Parameters<typeof matches>[2]): void {
  const assertion = assertionOf(request);
  if (assertion && matches(assertion, entry, options) !== true) throw new DirectoryError('assertionFailed', '');
}
