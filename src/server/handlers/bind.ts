/**
 * Simple bind (RFC 4513): anonymous, the admin, or an entry's userPassword through the scheme
 * registry. An unknown DN costs the same as a wrong password (a dummy hash is verified), and
 * both answer invalidCredentials, so accounts cannot be enumerated.
 */
import { normalizeDn, parseDn, values, ResultCode, type Dn } from '../../store/index.js';
import type { OperationContext, Reply } from '../context.js';
import type { Request } from '../protocol/types.js';

type BindRequest = Extract<Request, { kind: 'bind' }>;

const INVALID: Reply = { code: ResultCode.invalidCredentials, message: '' };

async function verifyAny(context: OperationContext, password: Buffer, stored: readonly string[]): Promise<boolean> {
  const { registry, dummyHash } = context.server;
  if (stored.length === 0) {
    await registry.verify(password, dummyHash);
    return false;
  }
  for (const value of stored) {
    if ((await registry.verify(password, value)).status === 'match') return true;
  }
  return false;
}

/** Bind DNs seen recently, parsed and normalized: the same accounts bind again and again. */
const boundNames = new Map<string, { readonly dn: Dn; readonly normalized: string }>();

function parseBindDn(name: string): { readonly dn: Dn; readonly normalized: string } {
  let parsed = boundNames.get(name);
  if (parsed === undefined) {
    const dn = parseDn(name);
    parsed = { dn, normalized: normalizeDn(dn) };
    if (boundNames.size >= 50_000) boundNames.clear();
    boundNames.set(name, parsed);
  }
  return parsed;
}

function storedPasswords(context: OperationContext, name: string): { isAdmin: boolean; stored: string[] } {
  const { admin, store } = context.server;
  const { dn, normalized } = parseBindDn(name);
  if (normalized === admin.normalizedDn) return { isAdmin: true, stored: [admin.stored] };
  const entry = store.getSync(dn);
  return { isAdmin: false, stored: entry ? values(entry, 'userPassword').map((value) => value.toString('utf8')) : [] };
}

export async function bind(request: BindRequest, context: OperationContext): Promise<Reply> {
  const { session } = context;
  session.bindAs('', false);
  if (request.version !== 3) return { code: ResultCode.protocolError, message: 'only LDAPv3 is supported' };
  if (request.authentication.method !== 'simple') {
    return { code: 7, message: 'SASL mechanisms are not supported' };
  }
  const password = request.authentication.password;
  if (request.name === '') {
    return password.byteLength === 0 ? { code: ResultCode.success } : INVALID;
  }
  if (password.byteLength === 0) {
    return { code: ResultCode.unwillingToPerform, message: 'unauthenticated bind (DN with no password) disallowed' };
  }
  const { isAdmin, stored } = storedPasswords(context, request.name);
  if (!(await verifyAny(context, password, stored))) return INVALID;
  session.bindAs(request.name, isAdmin);
  return { code: ResultCode.success };
}
