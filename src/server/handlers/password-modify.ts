/**
 * Password Modify (RFC 3062), as OpenLDAP answers ldappasswd: a user changes its own password,
 * the admin sets anyone's (access.ts), the old password is checked when given (a mismatch:
 * unwillingToPerform, OpenLDAP's answer), and when no new password is given one is generated and
 * returned in the response. The new password is hashed like any written userPassword
 * (password-values.ts) and replaces every value, with modifiersName/modifyTimestamp, in one write.
 */
import { randomBytes } from 'node:crypto';
import { modifyEntry, normalizeDn, parseDn, values, DirectoryError, ResultCode, type Dn, type Entry } from '../../store/index.js';
import { decodePasswordModify, encodePasswordModifyResponse, type PasswordModifyRequest } from '../protocol/index.js';
import type { Request } from '../protocol/types.js';
import { requireAccess } from '../access.js';
import type { OperationContext, Reply, ServerContext } from '../context.js';
import { passwordsToStore } from '../password-values.js';

type ExtendedRequest = Extract<Request, { kind: 'extended' }>;

/** The entry whose password changes: userIdentity (a DN, optionally "dn:"-prefixed), else the bound entry. */
function targetOf(fields: PasswordModifyRequest, context: OperationContext): Dn {
  const { session } = context;
  if (fields.userIdentity !== undefined) return parseDn(fields.userIdentity.replace(/^dn:/i, ''));
  if (session.isAdmin) {
    throw new DirectoryError('noSuchObject', 'the admin is not an entry: name the user, or set the admin password with --admin-password-file');
  }
  return parseDn(session.dn);
}

async function checkOldPassword(entry: Entry, oldPassword: Buffer, server: ServerContext): Promise<void> {
  for (const stored of values(entry, 'userPassword')) {
    if ((await server.registry.verify(oldPassword, stored.toString('utf8'))).status === 'match') return;
  }
  throw new DirectoryError('unwillingToPerform', 'unwilling to verify old password');
}

export async function passwordModify(request: ExtendedRequest, context: OperationContext): Promise<Reply> {
  const { server, session } = context;
  const fields = decodePasswordModify(request.value);
  if (session.anonymous) throw new DirectoryError('insufficientAccessRights', 'only authenticated users may change passwords');
  const dn = targetOf(fields, context);
  requireAccess(session, server.config, normalizeDn(dn), 'writePassword');
  const generated = fields.newPassword === undefined ? Buffer.from(randomBytes(12).toString('base64url')) : undefined;
  const [stored] = await passwordsToStore([fields.newPassword ?? generated!], session, server);
  const { oldPassword } = fields;
  await modifyEntry(server.store, dn, [{ op: 'replace', attribute: 'userPassword', values: [stored!] }], {
    actor: session.dn,
    check: oldPassword === undefined ? undefined : (entry) => checkOldPassword(entry, oldPassword, server),
  });
  if (generated === undefined) return { code: ResultCode.success };
  return { code: ResultCode.success, responseValue: encodePasswordModifyResponse(generated) };
}
