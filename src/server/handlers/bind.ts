/**
 * Simple bind (RFC 4513): anonymous, the admin, or an entry's userPassword through the scheme
 * registry, under the password policy (src/policy/runtime.ts). An unknown DN, a wrong password
 * and a locked account all answer invalidCredentials, after a decoy verification for an unknown
 * DN (a real account's stored values, ../bind-decoys.ts) and no sooner than the slowest recent
 * verification, so neither the answer nor its timing tells which. At most MAX_VERIFIED_VALUES
 * stored values are verified (the first ones). With lockout on, a bind of an entry reserves an attempt before verifying (waiting
 * in line while every attempt left is being verified, see ../lockout.ts), a wrong password counts
 * toward lockout, and a match answers success only if the account is not locked at that moment.
 * The verified-bind cache may answer a repeat bind of a costly scheme; after a success, a stored
 * value the policy wants re-encoded is re-encoded once the bind has answered.
 */
import { formatDn, normalizeDn, parseDn, values, ResultCode, type Dn, type Entry } from '../../store/index.js';
import type { OperationContext, Reply } from '../context.js';
import type { Request } from '../../protocol/types.js';
import { verifiedValues } from '../../policy/verified-values.js';

type BindRequest = Extract<Request, { kind: 'bind' }>;

const INVALID: Reply = { code: ResultCode.invalidCredentials, message: '' };
/** --require-tls-for-binds: a password never travels in clear (13, confidentialityRequired). */
const CONFIDENTIALITY_REQUIRED: Reply = { code: ResultCode.confidentialityRequired, message: 'confidentiality required: use StartTLS or LDAPS to bind with a password' };

/**
 * Failed binds answer no sooner than the slowest recent verification (a decaying maximum), so
 * neither an unknown DN nor a cheap stored scheme answers faster than a costly one. The maximum
 * decays with every verification and with time (halved every FLOOR_HALF_LIFE_MS), so one sample
 * inflated by a stall (a long GC, a busy thread pool) does not slow every failed bind for long.
 */
class FailureFloor {
  private floorMs = 0;
  private updatedAt = performance.now();

  observe(millis: number, now = performance.now()): void {
    const decayed = this.floorMs * 0.999 * 0.5 ** ((now - this.updatedAt) / FLOOR_HALF_LIFE_MS);
    this.floorMs = Math.min(MAX_FLOOR_MS, Math.max(decayed, millis));
    this.updatedAt = now;
  }

  async wait(startedAt: number): Promise<void> {
    const remaining = this.floorMs - (performance.now() - startedAt);
    if (remaining > 0.2) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}

const FLOOR_HALF_LIFE_MS = 5000;
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

/**
 * A bind of a DN that does not exist (or holds no password): the password is verified against a
 * real account's values (../bind-decoys.ts), so that it costs what a wrong password costs; never
 * through the verified-bind cache, and whatever it finds, nobody is bound.
 */
async function verifyDecoy(context: OperationContext, password: Buffer): Promise<void> {
  const { registry, decoys } = context.server;
  for (const stored of decoys.pick()) {
    const started = performance.now();
    await registry.verify(password, stored);
    failureFloor.observe(performance.now() - started);
  }
}

/** The stored value the password matches (among the first MAX_VERIFIED_VALUES), or undefined (after a decoy verification when there is none). */
async function matchingValue(context: OperationContext, key: string, password: Buffer, stored: readonly string[]): Promise<string | undefined> {
  if (stored.length === 0) {
    await verifyDecoy(context, password);
    return undefined;
  }
  for (const value of verifiedValues(stored)) {
    if (await verifyOne(context, key, password, value)) return value;
  }
  return undefined;
}

interface BindDn {
  readonly dn: Dn;
  readonly normalized: string;
  /** RFC 4514 without the client's stray spaces: the identity Who Am I and modifiersName show. */
  readonly pretty: string;
}

/**
 * Bind DNs that bound successfully, parsed and normalized: the same accounts bind again and again.
 * At most BOUND_NAMES_LIMIT (about 800 bytes each); when full it starts over, but at most once
 * every REFILL_MILLIS: with many more accounts than that binding at random, a cache refilled
 * at once only churns (every entry outlives V8's young generation and becomes old-generation
 * garbage: tens of MB of heap with 100,000 users), for a parse that takes 4-8 µs.
 */
const boundNames = new Map<string, BindDn>();
const BOUND_NAMES_LIMIT = 10_000;
const REFILL_MILLIS = 30_000;
const CACHED_NAME_LIMIT = 512;
let filledAt = 0;

function parseBindDn(name: string): BindDn {
  const cached = boundNames.get(name);
  if (cached) return cached;
  const dn = parseDn(name);
  return { dn, normalized: normalizeDn(dn), pretty: formatDn(dn) };
}

/** Remembers a DN that just bound (short ones only: the cache must not be a way to fill memory). */
function remember(name: string, parsed: BindDn): void {
  if (name.length > CACHED_NAME_LIMIT || boundNames.has(name)) return;
  if (boundNames.size >= BOUND_NAMES_LIMIT) {
    const now = Date.now();
    if (now - filledAt < REFILL_MILLIS) return;
    boundNames.clear();
  }
  boundNames.set(name, parsed);
  if (boundNames.size === BOUND_NAMES_LIMIT) filledAt = Date.now();
}

interface Account {
  readonly isAdmin: boolean;
  readonly stored: readonly string[];
  /** The whole entry, read only when lockout needs its records. */
  readonly entry?: Entry;
}

/** An entry's account, read whole because lockout is on. */
type EntryAccount = Account & { readonly entry: Entry };
const hasEntry = (account: Account): account is EntryAccount => account.entry !== undefined;

const texts = (stored: readonly Buffer[]): string[] => stored.map((value) => value.toString('utf8'));

function lookupAccount(context: OperationContext, dn: Dn, normalized: string): Account {
  const { admin, store, policy, decoys } = context.server;
  if (normalized === admin.normalizedDn) return { isAdmin: true, stored: [admin.stored] };
  if (!policy.lockout.enabled) {
    const stored = texts(store.valuesSync(dn, 'userPassword') ?? []);
    decoys.offer(stored);
    return { isAdmin: false, stored };
  }
  const entry = store.getSync(dn);
  if (!entry) return { isAdmin: false, stored: [] };
  const stored = texts(values(entry, 'userPassword'));
  decoys.offer(stored);
  return { isAdmin: false, stored, entry };
}

/**
 * Lockout's say before a password of this entry is verified: the account (read again if the bind
 * had to wait its turn) with an attempt reserved, or undefined when the bind is refused (locked).
 */
async function reserveAttempt(context: OperationContext, parsed: BindDn, account: EntryAccount): Promise<EntryAccount | undefined> {
  const { policy: { lockout }, log } = context.server;
  if (lockout.isLocked(parsed.normalized, account.entry)) return undefined;
  const reserved = lockout.reserve(parsed.normalized, { dn: parsed.dn, entry: account.entry });
  if (reserved === true) return account;
  if (reserved === false) return undefined;
  log.debug({ dn: parsed.normalized }, 'bind waits: every attempt left is being verified');
  if (!(await reserved)) return undefined;
  // Its turn came: the entry may have changed (locked by the admin, a new password) while it waited.
  const current = lookupAccount(context, parsed.dn, parsed.normalized);
  if (hasEntry(current) && !lockout.isLocked(parsed.normalized, current.entry)) return current;
  lockout.release(parsed.normalized);
  return undefined;
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
    return { code: ResultCode.authMethodNotSupported, message: 'SASL mechanisms are not supported' };
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
  if (hasEntry(account)) return bindEntry(context, request.name, parsed, account, password, started);
  const matched = await matchingValue(context, parsed.normalized, password, account.stored);
  if (matched === undefined) {
    await failureFloor.wait(started);
    return INVALID;
  }
  return succeed(context, request.name, parsed, account, password, matched);
}

/** A bind of an entry under lockout: an attempt reserved, verified, counted; success only if still not locked. */
async function bindEntry(
  context: OperationContext, name: string, parsed: BindDn, looked: EntryAccount, password: Buffer, started: number,
): Promise<Reply> {
  const { policy: { lockout }, log } = context.server;
  const refuse = async (why: string): Promise<Reply> => {
    log.debug({ dn: parsed.normalized }, why);
    await failureFloor.wait(started);
    return INVALID;
  };
  const account = await reserveAttempt(context, parsed, looked);
  if (account === undefined) return refuse('bind refused: the account is locked');
  let matched: string | undefined;
  try {
    matched = await matchingValue(context, parsed.normalized, password, account.stored);
  } catch (error) {
    lockout.release(parsed.normalized);
    throw error;
  }
  if (matched === undefined) {
    await lockout.failed(parsed.dn, parsed.normalized);
    await failureFloor.wait(started);
    return INVALID;
  }
  if (lockout.lockedNow(parsed.dn, parsed.normalized)) {
    lockout.release(parsed.normalized);
    return refuse('bind refused: the account was locked during the verification');
  }
  return succeed(context, name, parsed, account, password, matched);
}

function succeed(context: OperationContext, name: string, parsed: BindDn, account: Account, password: Buffer, matched: string): Reply {
  const { session } = context;
  remember(name, parsed);
  session.bindAs(parsed.pretty, account.isAdmin, parsed.normalized);
  if (!account.isAdmin) afterSuccess(context, parsed, account, password, matched);
  return { code: ResultCode.success };
}
