/**
 * The subschema entry (base "cn=Subschema"): every attribute type, object class, syntax and
 * matching rule the server knows (src/store/schema/subschema.ts builds it once per thread). As
 * OpenLDAP returns it: objectClass and cn for a plain request, the definitions and timestamps
 * when asked for by name or with '+'. Readable by whoever may read the tree (search.ts checks).
 */
import type { SearchRequest } from '../../protocol/types.js';
import type { OperationContext, Reply } from '../context.js';
import { answerWithEntry } from './single-entry.js';

export function subschema(request: SearchRequest, context: OperationContext): Promise<Reply> {
  return answerWithEntry(request, context, context.server.subschema);
}
