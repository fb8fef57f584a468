/**
 * Add (RFC 4511 4.7), for the admin: the parent must exist (noSuchObject with matchedDN), the
 * entry must not (entryAlreadyExists), it needs an objectClass (objectClassViolation); the RDN's
 * values are added when missing, as OpenLDAP does. userPassword values are hashed on the way in,
 * and may not name the entry (password-values.ts).
 * Only an entry named by --base-dn may start a naming context. With the assertion control the
 * entry as it would be stored must match it (assertionFailed); with the post-read control the
 * response carries the entry as stored (write-controls.ts).
 */
import { addEntry, DirectoryError, normalizeDn, parseDn } from '../../store/index.js';
import { ResultCode } from '../../protocol/index.js';
import type { AddRequest } from '../../protocol/types.js';
import { requireAccess } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { refusePasswordInRdn, valuesToStore } from '../password-values.js';
import { WriteControls } from '../write-controls.js';
import { refuseMadeEntryWrite } from './made-entries.js';


export async function add(request: AddRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  if (request.attributes.length === 0) throw new DirectoryError('protocolError', 'no attributes provided');
  const dn = parseDn(request.dn);
  const normalized = normalizeDn(dn);
  refuseMadeEntryWrite('add', normalized);
  requireAccess(session, server.config, normalized, 'writeEntry');
  if (dn.length > 0) refusePasswordInRdn(dn[0]!);
  const controls = WriteControls.of(request, session, () => false);
  const attributes = await Promise.all(request.attributes.map(async ({ name, values }) => ({
    name, values: await valuesToStore(name, values, session, server),
  })));
  const allowNewSuffix = normalized === normalizeDn(server.config.baseDn);
  const stored = await addEntry(server.store, { dn: request.dn, attributes }, { actor: session.dn, allowNewSuffix, check: controls.before });
  return { code: ResultCode.success, controls: await controls.response(stored) };
}
