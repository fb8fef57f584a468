/**
 * Modify DN (RFC 4511 4.9), for the admin: a new RDN (its values added, the old ones removed with
 * deleteoldrdn) and optionally a new superior; the entries below move with it, up to
 * --max-subtree-rename entries in all (unwillingToPerform beyond). The new name must be free
 * (entryAlreadyExists), the new superior must exist (noSuchObject); userPassword may not name it. The groups naming the entry
 * or any entry below it name their new DNs (referential integrity, up to --max-refint-groups).
 * The assertion control and the pre-read copy see the entry under its lock before the rename; the
 * post-read copy is the entry as renamed (write-controls.ts).
 */
import { normalizeDn, parseDn, renameEntry, DirectoryError } from '../../store/index.js';
import { ResultCode } from '../../protocol/index.js';
import type { ModifyDnRequest } from '../../protocol/types.js';
import { requireAccess } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { refusePasswordInRdn } from '../password-values.js';
import { WriteControls } from '../write-controls.js';
import { refuseMadeEntryWrite } from './made-entries.js';


function parseNewRdn(text: string) {
  const rdns = parseDn(text);
  if (rdns.length !== 1) throw new DirectoryError('invalidDnSyntax', `new RDN "${text.slice(0, 200)}" must be one RDN`);
  return rdns[0]!;
}

export async function modifyDn(request: ModifyDnRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  const dn = parseDn(request.dn);
  const normalized = normalizeDn(dn);
  refuseMadeEntryWrite('modifyDn', normalized);
  requireAccess(session, server.config, normalized, 'writeEntry');
  const newRdn = parseNewRdn(request.newRdn);
  refusePasswordInRdn(newRdn);
  const newSuperior = request.newSuperior === undefined ? undefined : parseDn(request.newSuperior);
  const controls = WriteControls.of(request, session, () => server.store.hasChildren(dn));
  const renamed = await renameEntry(server.store, dn, { newRdn, deleteOldRdn: request.deleteOldRdn, newSuperior }, {
    actor: session.dn, maxRefintGroups: server.config.limits.maxRefintGroups, maxSubtreeEntries: server.config.limits.maxSubtreeRename,
    check: controls.before,
  });
  return { code: ResultCode.success, controls: await controls.response(renamed) };
}
