/**
 * Password Modify (RFC 3062), as OpenLDAP answers ldappasswd: a user changes its own password,
 * the admin sets anyone's (access.ts), the old password is checked when given (a mismatch:
 * unwillingToPerform, OpenLDAP's answer), and when no new password is given one is generated and
 * returned in the response (long enough for --min-password-length). The new password meets the
 * policy's quality rules and is hashed like any written userPassword (password-values.ts); it
 * replaces every value, with modifiersName/modifyTimestamp, in one write.
 */
import { randomBytes } from 'node:crypto';
import { dnSizeProblem, formatDn, modifyEntry, normalizeDn, parseDn, DirectoryError, type Dn, type Entry } from '../../store/index.js';
import { ResultCode, decodePasswordModify, encodePasswordModifyResponse, type PasswordModifyRequest } from '../../protocol/index.js';
import { dnLimitsOf } from '../config.js';
import type { ExtendedRequest } from '../../protocol/types.js';
import { requireAccess } from '../access.js';
import type { OperationContext, Reply, ServerContext } from '../context.js';
import { matchesCurrent, passwordChangeRecords, passwordsToStore, plainPasswords, refuseCurrentPassword } from '../password-values.js';


/** The entry whose password changes: userIdentity (a DN, optionally "dn:"-prefixed), else the bound entry. */
function targetOf(fields: PasswordModifyRequest, context: OperationContext): Dn {
  const { session } = context;
  if (fields.userIdentity !== undefined) {
    const text = fields.userIdentity.replace(/^dn:/i, '');
    const problem = dnSizeProblem(text, dnLimitsOf(context.server.config.limits));
    if (problem) throw new DirectoryError('invalidDnSyntax', `invalid DN: ${problem}`);
    return parseDn(text);
  }
  if (session.isAdmin) {
    throw new DirectoryError('noSuchObject', 'the admin is not an entry: name the user, or set the admin password with --admin-password-file');
  }
  return parseDn(session.dn);
}

async function checkOldPassword(entry: Entry, oldPassword: Buffer, server: ServerContext): Promise<void> {
  if (!(await matchesCurrent(entry, oldPassword, server))) throw new DirectoryError('unwillingToPerform', 'unwilling to verify old password');
}

/** A generated password (genPasswd): 16 characters of base64url (96 random bits), or the policy's minimum length if longer. */
function generatePassword(minLength: number): Buffer {
  const length = Math.max(16, minLength);
  return Buffer.from(randomBytes(Math.ceil((length * 3) / 4)).toString('base64url').slice(0, length));
}

export async function passwordModify(request: ExtendedRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  // As OpenLDAP: who asks is checked before the request is read.
  if (session.anonymous) throw new DirectoryError('strongerAuthRequired', 'only authenticated users may change passwords');
  const fields = decodePasswordModify(request.value);
  const dn = targetOf(fields, context);
  const normalized = normalizeDn(dn);
  requireAccess(session, server.config, normalized, 'writePassword');
  // A missing entry answers noSuchObject (with matchedDN) before the new password is judged.
  await server.store.require(dn, `entry ${formatDn(dn)} does not exist`);
  const generated = fields.newPassword === undefined ? generatePassword(server.policy.settings.minPasswordLength) : undefined;
  const newPassword = fields.newPassword ?? generated!;
  const [stored] = await passwordsToStore([newPassword], session, server);
  const { oldPassword } = fields;
  await modifyEntry(server.store, dn, [{ op: 'replace', attribute: 'userPassword', values: [stored!] }], {
    actor: session.dn,
    records: passwordChangeRecords(new Date()),
    check: async (entry) => {
      if (oldPassword !== undefined) await checkOldPassword(entry, oldPassword, server);
      await refuseCurrentPassword(entry, plainPasswords([newPassword], server), server);
    },
  });
  server.policy.lockout.passwordChanged(normalized);
  if (generated === undefined) return { code: ResultCode.success };
  return { code: ResultCode.success, responseValue: encodePasswordModifyResponse(generated) };
}
