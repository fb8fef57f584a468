/**
 * Modify (RFC 4511 4.6; increment, RFC 4525): add, delete, replace and increment, all or none.
 * The admin may change anything; a user only its own userPassword (access.ts). userPassword
 * values added or replaced are hashed on the way in, and new plain-text ones must meet the
 * password policy's quality rules (password-values.ts). A user sets one userPassword value in
 * the whole operation, checked before anything is hashed, and its entry ends with one at most.
 * The admin's unlock (deleting or replacing pwdAccountLockedTime) removes pwdFailureTime with it,
 * so that the failures that caused the lock do not count again (lockout.ts counts stored
 * failures); a password written records pwdChangedTime and removes pwdFailureTime (as ppolicy),
 * and the lockout's count of the account in memory goes with it. The
 * assertion control and the pre-read copy see the entry under its lock before the changes, the
 * post-read copy is the entry as written (write-controls.ts).
 */
import { modifyEntry, normalizeDn, parseDn, typeKey, DirectoryError, type Modification, type ModifyOptions } from '../../store/index.js';
import { ResultCode } from '../../protocol/index.js';
import type { Change, ModifyRequest } from '../../protocol/types.js';
import { requireAccess, writeRightFor } from '../access.js';
import type { OperationContext, Reply } from '../context.js';
import { passwordChangeRecords, plainPasswords, refuseCurrentPassword, refuseManyPasswords, refuseSecondPassword, valuesToStore } from '../password-values.js';
import { WriteControls } from '../write-controls.js';
import { refuseMadeEntryWrite } from './made-entries.js';

async function toStore(change: Change, context: OperationContext): Promise<Modification> {
  if (change.op !== 'add' && change.op !== 'replace') return change;
  return { ...change, values: await valuesToStore(change.attribute, change.values, context.session, context.server) };
}

const touches = (change: Change, type: string) => typeKey(change.attribute) === type;

/** The changes, and with an unlock (pwdAccountLockedTime deleted or replaced) that leaves pwdFailureTime alone, its removal. */
function withUnlock(changes: readonly Change[]): readonly Change[] {
  const unlocks = changes.some((change) => touches(change, 'pwdaccountlockedtime') && (change.op === 'delete' || change.op === 'replace'));
  if (!unlocks || changes.some((change) => touches(change, 'pwdfailuretime'))) return changes;
  return [...changes, { op: 'replace', attribute: 'pwdFailureTime', values: [] }];
}

/** The changes that add or replace userPassword values. */
const passwordWrites = (changes: readonly Change[]): Change[] =>
  changes.filter((change) => (change.op === 'add' || change.op === 'replace') && change.values.length > 0 && touches(change, 'userpassword'));

/**
 * The checks under the entry's lock when the changes write passwords: a new plain-text password
 * must not be the current one (on the stored entry); a user's entry must not end with a second
 * password (on the entry the changes give).
 */
function passwordChecks(written: readonly Change[], context: OperationContext): Pick<ModifyOptions, 'check' | 'checkResult'> {
  const { server, session } = context;
  if (written.length === 0) return {};
  const passwords = written.flatMap((change) => plainPasswords(change.values, server));
  return {
    ...(passwords.length > 0 && { check: (entry) => refuseCurrentPassword(entry, passwords, server) }),
    ...(!session.isAdmin && { checkResult: (after) => refuseSecondPassword(after, session) }),
  };
}

export async function modify(request: ModifyRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  const dn = parseDn(request.dn);
  const normalized = normalizeDn(dn);
  refuseMadeEntryWrite('modify', normalized);
  if (request.changes.length === 0) throw new DirectoryError('protocolError', 'no modifications specified');
  for (const change of request.changes) requireAccess(session, server.config, normalized, writeRightFor(change.attribute));
  refuseManyPasswords(request.changes, session);
  const controls = WriteControls.of(request, session, () => server.store.hasChildren(dn));
  const modifications = await Promise.all(withUnlock(request.changes).map((change) => toStore(change, context)));
  const writes = passwordWrites(request.changes);
  const records = writes.length > 0 ? passwordChangeRecords(new Date(), new Set(modifications.map((change) => typeKey(change.attribute)))) : [];
  const passwords = passwordChecks(writes, context);
  const written = await modifyEntry(server.store, dn, modifications, {
    actor: session.dn,
    records,
    ...passwords,
    check: async (entry) => {
      await controls.before(entry);
      await passwords.check?.(entry);
    },
  });
  if (writes.length > 0) server.policy.lockout.passwordChanged(normalized);
  return { code: ResultCode.success, controls: await controls.response(written) };
}
