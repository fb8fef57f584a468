/**
 * Simple bind (RFC 4513): the protocol's checks, then the password policy's verdict
 * (src/policy/authenticate.ts: the admin or an entry's userPassword, lockout, the failure timing
 * floor, the verified-bind cache, decoys for unknown DNs), then the session is bound. The session
 * was made anonymous before this runs (dispatch.ts), whatever the outcome. An unknown DN, a wrong
 * password and a locked account all answer invalidCredentials (49), with nothing in the message.
 */
import { ResultCode } from '../../protocol/index.js';
import type { OperationContext, Reply } from '../context.js';
import type { BindRequest } from '../../protocol/types.js';

const NOT_V3: Reply = { code: ResultCode.protocolError, message: 'only LDAPv3 is supported' };
const SASL_UNSUPPORTED: Reply = { code: ResultCode.authMethodNotSupported, message: 'SASL mechanisms are not supported' };
const INVALID: Reply = { code: ResultCode.invalidCredentials, message: '' };
/** --require-tls-for-binds: a password never travels in clear (13, confidentialityRequired). */
const CONFIDENTIALITY_REQUIRED: Reply = { code: ResultCode.confidentialityRequired, message: 'confidentiality required: use StartTLS or LDAPS to bind with a password' };

/** The protocol's answer before the password is looked at, or undefined to authenticate. */
function refusal(request: BindRequest, password: Buffer, context: OperationContext): Reply | undefined {
  if (password.byteLength > 0 && context.server.config.requireTlsForBinds && !context.session.secure) return CONFIDENTIALITY_REQUIRED;
  if (request.name === '') return password.byteLength === 0 ? { code: ResultCode.success } : INVALID;
  if (password.byteLength === 0) return { code: ResultCode.unwillingToPerform, message: 'unauthenticated bind (DN with no password) disallowed' };
  return undefined;
}

export async function bind(request: BindRequest, context: OperationContext): Promise<Reply> {
  const { authentication } = request;
  if (request.version !== 3) return NOT_V3;
  if (authentication.method !== 'simple') return SASL_UNSUPPORTED;
  const early = refusal(request, authentication.password, context);
  if (early) return early;
  const { bindNames, policy } = context.server;
  const parsed = bindNames.parse(request.name);
  const verdict = await policy.authenticator.authenticate(parsed, authentication.password);
  if (verdict.result === 'invalid') return INVALID;
  bindNames.bound(request.name, parsed);
  context.session.bindAs(parsed.pretty, verdict.isAdmin, parsed.normalized);
  return { code: ResultCode.success };
}
