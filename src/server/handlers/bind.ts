/**
 * Simple bind (RFC 4513): the protocol's checks, then the password policy's verdict
 * (src/policy/authenticate.ts: the admin or an entry's userPassword, lockout, the failure timing
 * floor, the verified-bind cache, decoys for unknown DNs), then the session is bound. The session
 * was made anonymous before this runs (dispatch.ts), whatever the outcome. An unknown DN, a wrong
 * password and a locked account all answer invalidCredentials (49), with nothing in the message.
 *
 * With the password policy request control (draft-behera-ldap-password-policy, as nslcd and SSSD
 * send it), every BindResponse carries the response control: empty (no warning: leveldap has no
 * password expiry; no error), except accountLocked when the password was verified right and the
 * account got locked during the verification (authenticate.ts). A locked account's password is
 * not verified, so its binds get the empty control, as a wrong password and an unknown DN do:
 * the control never tells who is locked or which password is right (docs/password-policy.md).
 */
import { ResultCode, checkPasswordPolicyRequest, encodePasswordPolicyResponse, PASSWORD_POLICY_OID } from '../../protocol/index.js';
import type { OperationContext, Reply } from '../context.js';
import type { BindRequest, Control } from '../../protocol/types.js';
import { requestControl } from '../controls.js';
import { SLOT, type BindResult } from '../monitor/stats.js';

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

/** The password policy response controls a bind can get: nothing to report, or accountLocked. */
const POLICY_CONTROLS = {
  none: { type: PASSWORD_POLICY_OID, critical: false, value: encodePasswordPolicyResponse({}) },
  accountLocked: { type: PASSWORD_POLICY_OID, critical: false, value: encodePasswordPolicyResponse({ error: 'accountLocked' }) },
} as const satisfies Record<string, Control>;

/** The bind's answer, whether the password was right for an account locked meanwhile, the scheme verified and whether the cache answered. */
interface Outcome {
  readonly reply: Reply;
  readonly accountLocked?: boolean;
  readonly scheme?: string;
  readonly cached?: boolean;
}

async function authenticateBind(request: BindRequest, context: OperationContext): Promise<Outcome> {
  const { authentication } = request;
  if (request.version !== 3) return { reply: NOT_V3 };
  if (authentication.method !== 'simple') return { reply: SASL_UNSUPPORTED };
  const early = refusal(request, authentication.password, context);
  if (early) return { reply: early };
  const { bindNames, policy } = context.server;
  const parsed = bindNames.parse(request.name);
  const verdict = await policy.authenticator.authenticate(parsed, authentication.password);
  const { scheme, cached } = verdict;
  if (verdict.result === 'invalid') return { reply: INVALID, accountLocked: verdict.accountLocked === true, scheme, cached };
  bindNames.bound(request.name, parsed);
  context.session.bindAs(parsed.pretty, verdict.isAdmin, parsed.normalized);
  return { reply: { code: ResultCode.success, scheme, cached: cached === true }, scheme, cached };
}

const resultOf = (code: number): BindResult => (code === ResultCode.success ? 'success' : code === ResultCode.invalidCredentials ? 'invalid' : 'other');

/** Counts the bind for monitoring: by scheme and result, its latency, the verified-bind cache's answer. */
function count(context: OperationContext, outcome: Outcome): void {
  const { stats } = context.server.monitor;
  stats.bind(stats.schemeOf(outcome.scheme), resultOf(outcome.reply.code), (performance.now() - context.started) / 1000);
  if (outcome.cached !== undefined) stats.add(outcome.cached ? SLOT.bindCacheHits : SLOT.bindCacheMisses);
}

export async function bind(request: BindRequest, context: OperationContext): Promise<Reply> {
  const policyRequest = requestControl(request, PASSWORD_POLICY_OID);
  if (policyRequest) checkPasswordPolicyRequest(policyRequest.value);
  const outcome = await authenticateBind(request, context);
  count(context, outcome);
  const { reply, accountLocked } = outcome;
  if (!policyRequest) return reply;
  return { ...reply, controls: [accountLocked ? POLICY_CONTROLS.accountLocked : POLICY_CONTROLS.none] };
}
