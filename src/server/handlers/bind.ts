/**
 * Simple bind (RFC 4513): anonymous, the admin, or an entry's userPassword through the scheme
 * registry. An unknown DN costs the same as a wrong password (a dummy hash is verified), and
 * both answer invalidCredentials, so accounts cannot be enumerated.
 */
import { normalizeDn, parseDn, values, ResultCode } from '../../store/index.js';
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

async function storedPasswords(context: OperationContext, dn: string): Promise<{ isAdmin: boolean; stored: string[] }> {
  const { admin, store } = context.server;
  if (normalizeDn(dn) === admin.normalizedDn) return { isAdmin: true, stored: [admin.stored] };
  const entry = await store.get(parseDn(dn));
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
  parseDn(request.name);
  const { isAdmin, stored } = await storedPasswords(context, request.name);
  if (!(await verifyAny(context, password, stored))) return INVALID;
  session.bindAs(request.name, isAdmin);
  return { code: ResultCode.success };
}
