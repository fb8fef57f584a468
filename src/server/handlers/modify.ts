/**
 * Modify (RFC 4511 4.6; increment, RFC 4525): add, delete, replace and increment, all or none.
 * The admin may change anything; a user only its own userPassword (access.ts). userPassword
 * values added or replaced are hashed on the way in, and new plain-text ones must meet the
 * password policy's quality rules (password-values.ts).
 */
import { modifyEntry, normalizeDn, parseDn, typeKey, DirectoryError, ResultCode, type Modification } from '../../store/index.js';
import type { Change, Request } from '../protocol/types.js';
import { requireAccess, writeRightFor } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { plainPasswords, refuseCurrentPassword, valuesToStore } from '../password-values.js';

type ModifyRequest = Extract<Request, { kind: 'modify' }>;

async function toStore(change: Change, context: OperationContext): Promise<Modification> {
  if (change.op !== 'add' && change.op !== 'replace') return change;
  return { ...change, values: await valuesToStore(change.attribute, change.values, context.session, context.server) };
}

/** The new plain-text passwords the changes add or replace. */
function newPasswords(changes: readonly Change[], context: OperationContext): Buffer[] {
  const written = changes.filter((change) => (change.op === 'add' || change.op === 'replace') && typeKey(change.attribute) === 'userpassword');
  return written.flatMap((change) => plainPasswords(change.values, context.server));
}

export async function modify(request: ModifyRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  const dn = parseDn(request.dn);
  const normalized = normalizeDn(dn);
  if (request.changes.length === 0) throw new DirectoryError('protocolError', 'no modifications specified');
  for (const change of request.changes) requireAccess(session, server.config, normalized, writeRightFor(change.attribute));
  const modifications = await Promise.all(request.changes.map((change) => toStore(change, context)));
  const passwords = newPasswords(request.changes, context);
  await modifyEntry(server.store, dn, modifications, {
    actor: session.dn,
    check: passwords.length === 0 ? undefined : (entry) => refuseCurrentPassword(entry, passwords, server),
  });
  return { code: ResultCode.success };
}
