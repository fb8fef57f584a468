/**
 * Simple bind (RFC 4513): anonymous, the admin, or an entry's userPassword through the scheme
 * registry, under the password policy (../password-policy.ts). An unknown DN, a wrong password
 * and a locked account all answer invalidCredentials, after a dummy verification for an unknown
 * DN and no sooner than the slowest recent verification, so neither the answer nor its timing
 * tells which. A wrong password counts toward lockout; the verified-bind cache may answer a
 * repeat bind of a costly scheme; after a success, a stored value the policy wants re-encoded is
 * re-encoded once the bind has answered.
 */
import { normalizeDn, parseDn, values, ResultCode, type Dn, type Entry } from '../../store/index.js';
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

/**
 * Does the password match this stored value? For a costly scheme (one that records iterations)
 * the verified-bind cache answers when it saw this DN, password and value verify within its TTL.
 */
async function verifyOne(context: OperationContext, key: string, password: Buffer, stored: string): Promise<boolean> {
  const { registry, policy, log } = context.server;
  const cache = policy.bindCache;
  const cacheable = cache.enabled && registry.iterationsOf(stored) !== undefined;
  if (cacheable && cache.has(key, password, stored)) {
    log.debug({ dn: key, cacheHits: cache.hits }, 'verified-bind cache hit');
    return true;
  }
  const started = performance.now();
  const match = (await registry.verify(password, stored)).status === 'match';
  failureFloor.observe(performance.now() - started);
  if (match && cacheable) cache.remember(key, password, stored);
  return match;
}

/** The stored value the password matches, or undefined (after a dummy verification when there is none). */
async function matchingValue(context: OperationContext, key: string, password: Buffer, stored: readonly string[]): Promise<string | undefined> {
  if (stored.length === 0) {
    await verifyOne(context, key, password, context.server.dummyHash);
    return undefined;
  }
  for (const value of stored) {
    if (await verifyOne(context, key, password, value)) return value;
  }
  return undefined;
}

interface BindDn {
  readonly dn: Dn;
  readonly normalized: string;
}

/**
 * Bind DNs that bound successfully, parsed and normalized: the same accounts bind again and again.
 * At most BOUND_NAMES_LIMIT (about 800 bytes each); then it starts over. 50,000 cost some 40 MB
 * of heap with 100,000 users binding at random, for a parse that takes 4-8 µs.
 */
const boundNames = new Map<string, BindDn>();
const BOUND_NAMES_LIMIT = 10_000;
const CACHED_NAME_LIMIT = 512;

function parseBindDn(name: string): BindDn {
  const cached = boundNames.get(name);
  if (cached) return cached;
  const dn = parseDn(name);
  return { dn, normalized: normalizeDn(dn) };
}

/** Remembers a DN that just bound (short ones only: the cache must not be a way to fill memory). */
function remember(name: string, parsed: BindDn): void {
  if (name.length > CACHED_NAME_LIMIT || boundNames.has(name)) return;
  if (boundNames.size >= BOUND_NAMES_LIMIT) boundNames.clear();
  boundNames.set(name, parsed);
}

interface Account {
  readonly isAdmin: boolean;
  readonly stored: readonly string[];
  /** The whole entry, read only when lockout needs its records. */
  readonly entry?: Entry;
}

const texts = (stored: readonly Buffer[]): string[] => stored.map((value) => value.toString('utf8'));

function lookupAccount(context: OperationContext, dn: Dn, normalized: string): Account {
  const { admin, store, policy } = context.server;
  if (normalized === admin.normalizedDn) return { isAdmin: true, stored: [admin.stored] };
  if (!policy.lockout.enabled) return { isAdmin: false, stored: texts(store.valuesSync(dn, 'userPassword') ?? []) };
  const entry = store.getSync(dn);
  return entry ? { isAdmin: false, stored: texts(values(entry, 'userPassword')), entry } : { isAdmin: false, stored: [] };
}

/** After a successful bind of an entry: lockout records reset, the stored value re-encoded if the policy says so. */
function afterSuccess(context: OperationContext, parsed: BindDn, account: Account, password: Buffer, matched: string): void {
  const { lockout, upgrades } = context.server.policy;
  if (account.entry) lockout.succeeded(parsed.dn, parsed.normalized, account.entry);
  upgrades.consider(parsed.dn, parsed.normalized, password, matched);
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
  const account = lookupAccount(context, parsed.dn, parsed.normalized);
  const { lockout } = context.server.policy;
  if (account.entry && lockout.isLocked(parsed.normalized, account.entry)) {
    context.server.log.debug({ dn: parsed.normalized }, 'bind refused: the account is locked');
    await failureFloor.wait(started);
    return INVALID;
  }
  const matched = await matchingValue(context, parsed.normalized, password, account.stored);
  if (matched === undefined) {
    if (account.entry) await lockout.failed(parsed.dn, parsed.normalized);
    await failureFloor.wait(started);
    return INVALID;
  }
  remember(request.name, parsed);
  session.bindAs(request.name, account.isAdmin, parsed.normalized);
  if (!account.isAdmin) afterSuccess(context, parsed, account, password, matched);
  return { code: ResultCode.success };
}
