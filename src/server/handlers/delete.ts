/**
 * Delete (RFC 4511 4.8), for the admin: a leaf entry only (notAllowedOnNonLeaf), with its index
 * keys, and removed from the groups naming it (referential integrity, up to --max-refint-groups).
 */
import { deleteEntry, normalizeDn, parseDn } from '../../store/index.js';
import { ResultCode } from '../../protocol/index.js';
import type { DeleteRequest } from '../../protocol/types.js';
import { requireAccess } from '../access.js';
import type { OperationContext, Reply } from '../context.js';


export async function remove(request: DeleteRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  const dn = parseDn(request.dn);
  requireAccess(session, server.config, normalizeDn(dn), 'writeEntry');
  await deleteEntry(server.store, dn, { actor: session.dn, maxRefintGroups: server.config.limits.maxRefintGroups });
  return { code: ResultCode.success };
}
