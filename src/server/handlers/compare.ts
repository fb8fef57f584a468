/**
 * Compare (RFC 4511 4.10): compareTrue or compareFalse by the attribute's equality rule; memberOf
 * computed; a type the schema does not know refused first (undefinedAttributeType, as slapd). With the assertion control, only when the entry matches it (assertionFailed, 122, otherwise).
 */
import { attributeType, dnKey, isKnownType, normalizeDn, parseDn, values } from '../../store/index.js';
import { ResultCode } from '../../protocol/index.js';
import { matches } from '../filter/index.js';
import type { CompareRequest } from '../../protocol/types.js';
import { readable, requireAccess } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { memberOfValues, withMemberOf } from '../member-of.js';
import { assertionOf, requireAssertion } from '../assertion.js';


export async function compare(request: CompareRequest, context: OperationContext): Promise<Reply> {
  const { store, config } = context.server;
  requireAccess(context.session, config, '', 'readEntry');
  const dn = parseDn(request.dn);
  if (!isKnownType(request.attribute)) return { code: ResultCode.undefinedAttributeType, message: 'attribute type undefined' };
  const assertion = assertionOf(request);
  const stored = await store.require(dn);
  if (assertion) await requireAssertion(assertion, stored, context.session, () => store.hasChildren(dn));
  const type = attributeType(request.attribute);
  const entry = type.key === 'memberof' ? withMemberOf(stored, await memberOfValues(context.server, dnKey(dn), stored.dn)) : stored;
  // Refused whether or not the entry holds the attribute: neither answer may tell.
  if (!readable(context.session, normalizeDn(dn)).attribute(request.attribute)) {
    return { code: ResultCode.insufficientAccessRights, message: `${type.name} may not be compared` };
  }
  if (values(entry, request.attribute).length === 0) return { code: ResultCode.noSuchAttribute };
  const equal = matches({ type: 'equality', attribute: request.attribute, value: request.value }, entry);
  if (equal === undefined) return { code: ResultCode.invalidAttributeSyntax, message: `not a valid ${type.name} value` };
  return { code: equal ? ResultCode.compareTrue : ResultCode.compareFalse };
}
