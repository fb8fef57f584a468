/**
 * Simple bind (RFC 4513): anonymous, the admin, or an entry's userPassword through the scheme
 * registry. An unknown DN and a wrong password both answer invalidCredentials, after a dummy
 * verification and no sooner than the slowest recent verification, so neither the answer nor its
 * timing tells whether an account exists.
 */
import { normalizeDn, parseDn, ResultCode, type Dn } from '../../store/index.js';
import type { OperationContext, Reply } from '../context.js';
import type { Request } from '../protocol/types.js';

type BindRequest = Extract<Request, { kind: 'bind' }>;

const INVALID: Reply = { code: ResultCode.invalidCredentials, message: '' };
/** --require-tls-for-binds: a password never travels in clear (13, confidentialityRequired). */
const CONFIDENTIALITY_REQUIRED: Reply = { code: 13, message: 'confidentiality required: use StartTLS or LDAPS to bind with a password' };

/**
 * Failed binds answer no sooner than the slowest recent verification (a decaying maximum), so
 * neither an unknown DN nor a cheap stored scheme answers faster than a costly one.
 */
class FailureFloor {
  private floorMs = 0;

  observe(millis: number): void {
    this.floorMs = Math.min(MAX_FLOOR_MS, Math.max(this.floorMs * 0.999, millis));
  }

  async wait(startedAt: number): Promise<void> {
    const remaining = this.floorMs - (performance.now() - startedAt);
    if (remaining > 0.2) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}

const MAX_FLOOR_MS = 2000;
const failureFloor = new FailureFloor();

async function verifyOne(context: OperationContext, password: Buffer, stored: string): Promise<boolean> {
  const started = performance.now();
  const match = (await context.server.registry.verify(password, stored)).status === 'match';
  failureFloor.observe(performance.now() - started);
  return match;
}

async function verifyAny(context: OperationContext, password: Buffer, stored: readonly string[]): Promise<boolean> {
  if (stored.length === 0) {
    await verifyOne(context, password, context.server.dummyHash);
    return false;
  }
  for (const value of stored) {
    if (await verifyOne(context, password, value)) return true;
  }
  return false;
}

/** Bind DNs that bound successfully, parsed and normalized: the same accounts bind again and again. */
const boundNames = new Map<string, { readonly dn: Dn; readonly normalized: string }>();
const CACHED_NAME_LIMIT = 512;

function parseBindDn(name: string): { readonly dn: Dn; readonly normalized: string } {
  const cached = boundNames.get(name);
  if (cached) return cached;
  const dn = parseDn(name);
  return { dn, normalized: normalizeDn(dn) };
}

/** Remembers a DN that just bound (short ones only: the cache must not be a way to fill memory). */
function remember(name: string, parsed: { readonly dn: Dn; readonly normalized: string }): void {
  if (name.length > CACHED_NAME_LIMIT || boundNames.has(name)) return;
  if (boundNames.size >= 50_000) boundNames.clear();
  boundNames.set(name, parsed);
}

function storedPasswords(context: OperationContext, dn: Dn, normalized: string): { isAdmin: boolean; stored: string[] } {
  const { admin, store } = context.server;
  if (normalized === admin.normalizedDn) return { isAdmin: true, stored: [admin.stored] };
  const stored = store.valuesSync(dn, 'userPassword') ?? [];
  return { isAdmin: false, stored: stored.map((value) => value.toString('utf8')) };
}

export async function bind(request: BindRequest, context: OperationContext): Promise<Reply> {
  const { session } = context;
  session.bindAs('', false);
  if (request.version !== 3) return { code: ResultCode.protocolError, message: 'only LDAPv3 is supported' };
  if (request.authentication.method !== 'simple') {
    return { code: 7, message: 'SASL mechanisms are not supported' };
  }
  const password = request.authentication.password;
  if (password.byteLength > 0 && context.server.config.requireTlsForBinds && !session.secure) return CONFIDENTIALITY_REQUIRED;
  if (request.name === '') {
    return password.byteLength === 0 ? { code: ResultCode.success } : INVALID;
  }
  if (password.byteLength === 0) {
    return { code: ResultCode.unwillingToPerform, message: 'unauthenticated bind (DN with no password) disallowed' };
  }
  const started = performance.now();
  const parsed = parseBindDn(request.name);
  const { isAdmin, stored } = storedPasswords(context, parsed.dn, parsed.normalized);
  if (!(await verifyAny(context, password, stored))) {
    await failureFloor.wait(started);
    return INVALID;
  }
  remember(request.name, parsed);
  session.bindAs(request.name, isAdmin, parsed.normalized);
  return { code: ResultCode.success };
}
