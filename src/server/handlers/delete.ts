/**
 * Delete (RFC 4511 4.8), for the admin: a leaf entry only (notAllowedOnNonLeaf), with its index
 * keys, and removed from the groups naming it (referential integrity, up to --max-refint-groups).
 * The assertion control is tested and the pre-read copy taken under the entry's lock, on the
 * entry as deleted (write-controls.ts).
 */
import { deleteEntry, normalizeDn, parseDn } from '../../store/index.js';
import { ResultCode } from '../../protocol/index.js';
import type { DeleteRequest } from '../../protocol/types.js';
import { requireAccess } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { WriteControls } from '../write-controls.js';
import { refuseMadeEntryWrite } from './made-entries.js';


export async function remove(request: DeleteRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  const dn = parseDn(request.dn);
  const normalized = normalizeDn(dn);
  refuseMadeEntryWrite('delete', normalized);
  requireAccess(session, server.config, normalized, 'writeEntry');
  const controls = WriteControls.of(request, session, () => server.store.hasChildren(dn));
  await deleteEntry(server.store, dn, { actor: session.dn, maxRefintGroups: server.config.limits.maxRefintGroups, check: controls.before });
  return { code: ResultCode.success, controls: await controls.response() };
}
