/**
 * Authenticating a simple bind under the password policy: who the DN is (the admin, an entry, or
 * nobody), whether the password matches one of its stored values (at most MAX_VERIFIED_VALUES,
 * verified-values.ts), and what the policy says. An unknown DN, a wrong password and a locked
 * account are one answer, 'invalid', given after a decoy verification for an unknown DN (a real
 * account's stored values, bind-decoys.ts) and no sooner than the slowest recent verification
 * (FailureFloor), so neither the answer nor its timing tells which.
 *
 * With lockout on, a bind of an entry reserves an attempt before verifying (waiting in line while
 * every attempt left is being verified, lockout.ts), a wrong password counts toward lockout, and a
 * match answers 'success' only if the account is not locked at that moment. The verified-bind
 * cache (bind-cache.ts) may answer a repeat bind of a costly scheme; after a success the lockout
 * records are reset and a stored value the policy wants re-encoded is re-encoded (upgrade.ts),
 * after the bind has answered. One Authenticator per serving thread (its floor is the thread's).
 *
 * An 'invalid' verdict says `accountLocked` in one case only: the password was verified (within
 * lockout's attempts), it matched, and the account was locked meanwhile. A locked account's
 * password is never verified, so a bind cannot learn from it whether a password is right; nor
 * can a wrong password learn whether the account is locked (the password policy response
 * control reports accountLocked from this flag alone: handlers/bind.ts).
 */
import type { Logger } from 'pino';
import type { SchemeRegistry } from '../password/index.js';
import { values, type DirectoryStore, type Dn, type Entry } from '../store/index.js';
import type { VerifiedBindCache } from './bind-cache.js';
import type { BindDecoys } from './bind-decoys.js';
import type { Lockout } from './lockout.js';
import type { PasswordUpgrades } from './upgrade.js';
import { verifiedValues } from './verified-values.js';

/** The admin: not an entry; its DN normalized and its password hash. */
export interface AdminAccount {
  readonly normalizedDn: string;
  readonly stored: string;
}

/** What the verification of an account's stored values found (for the verdict and monitoring). */
interface Check {
  /** The stored value the password matched, if any. */
  readonly matched?: string;
  /** The scheme of that value, else of the first value verified (none for an unknown DN). */
  readonly scheme?: string;
  /** For a costly scheme's value: did the verified-bind cache answer (hit) or not (miss)? */
  readonly cached?: boolean;
}

/** What a bind is authenticated as, with the scheme that verified (or failed) and whether the cache answered. */
type Verdict = (
  | { readonly result: 'success'; readonly isAdmin: boolean }
  | { readonly result: 'invalid'; readonly accountLocked?: true }
) & Omit<Check, 'matched'>;

/** The bind's DN, parsed and normalized, and its entry's dnKey. */
export interface BindTarget {
  readonly dn: Dn;
  readonly normalized: string;
  readonly key: string;
}

interface AuthenticatorParts {
  readonly registry: SchemeRegistry;
  readonly store: DirectoryStore;
  readonly admin: AdminAccount;
  readonly lockout: Lockout;
  readonly bindCache: VerifiedBindCache;
  readonly upgrades: PasswordUpgrades;
  readonly decoys: BindDecoys;
  readonly log: Logger;
}

const FLOOR_HALF_LIFE_MS = 5000;
const MAX_FLOOR_MS = 2000;
const INVALID: Verdict = { result: 'invalid' };
const NO_MATCH: Check = {};
/** The right password, verified, for an account locked during the verification. */
const LOCKED_AFTER_MATCH: Verdict = { result: 'invalid', accountLocked: true };

/**
 * Failed binds answer no sooner than the slowest recent verification (a decaying maximum), so
 * neither an unknown DN nor a cheap stored scheme answers faster than a costly one. The maximum
 * decays with every verification and with time (halved every FLOOR_HALF_LIFE_MS), so one sample
 * inflated by a stall (a long GC, a busy thread pool) does not slow every failed bind for long.
 */
export class FailureFloor {
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

/** 'invalid', saying which scheme failed (the constant when nothing was verified). */
const invalid = (check: Check): Verdict => (check.scheme === undefined ? INVALID : { result: 'invalid', scheme: check.scheme, cached: check.cached });

export class Authenticator {
  private readonly floor = new FailureFloor();

  constructor(private readonly parts: AuthenticatorParts) {}

  /** Authenticates `password` for the bind DN; 'invalid' answers no sooner than the failure floor. */
  async authenticate(target: BindTarget, password: Buffer): Promise<Verdict> {
    const started = performance.now();
    const account = this.lookup(target);
    let verdict: Verdict;
    if (hasEntry(account)) verdict = await this.underLockout(target, account, password);
    else {
      // Without lockout (or for the admin): a match is a success.
      const check = await this.matchingValue(target.normalized, password, account.stored);
      verdict = check.matched === undefined ? invalid(check) : this.succeeded(target, account, password, check);
    }
    if (verdict.result === 'invalid') await this.floor.wait(started);
    return verdict;
  }

  /** An entry under lockout: an attempt reserved, verified, counted; success only if still not locked. */
  private async underLockout(target: BindTarget, looked: EntryAccount, password: Buffer): Promise<Verdict> {
    const { lockout, log } = this.parts;
    const account = await this.reserveAttempt(target, looked);
    if (account === undefined) {
      log.debug({ dn: target.normalized }, 'bind refused: the account is locked');
      return INVALID;
    }
    let check: Check;
    try {
      check = await this.matchingValue(target.normalized, password, account.stored);
    } catch (error) {
      lockout.release(target.normalized);
      throw error;
    }
    if (check.matched === undefined) {
      await lockout.failed(target.dn, target.normalized);
      return invalid(check);
    }
    if (lockout.lockedNow(target.dn, target.normalized)) {
      lockout.release(target.normalized);
      log.debug({ dn: target.normalized }, 'bind refused: the account was locked during the verification');
      return { ...LOCKED_AFTER_MATCH, scheme: check.scheme, cached: check.cached };
    }
    return this.succeeded(target, account, password, check);
  }

  /** After a match: lockout records reset and the value re-encoded if the policy says so (entries only). */
  private succeeded(target: BindTarget, account: Account, password: Buffer, check: Check): Verdict {
    if (!account.isAdmin) {
      if (account.entry) this.parts.lockout.succeeded(target.dn, target.normalized, account.entry);
      this.parts.upgrades.consider(target.dn, target.normalized, password, check.matched!);
    }
    return { result: 'success', isAdmin: account.isAdmin, scheme: check.scheme, cached: check.cached };
  }

  private lookup(target: BindTarget): Account {
    const { admin, store, lockout, decoys } = this.parts;
    if (target.normalized === admin.normalizedDn) return { isAdmin: true, stored: [admin.stored] };
    if (!lockout.enabled) {
      const stored = texts(store.passwordsByKeySync(target.key) ?? []);
      decoys.offer(target.key, stored);
      return { isAdmin: false, stored };
    }
    const entry = store.getByKeySync(target.key);
    if (!entry) return { isAdmin: false, stored: [] };
    const stored = texts(values(entry, 'userPassword'));
    // An entry without a password (an OU, a group) cannot bind: no attempt counts against it, nothing is written into it.
    if (stored.length === 0) return { isAdmin: false, stored };
    decoys.offer(target.key, stored);
    return { isAdmin: false, stored, entry };
  }

  /**
   * Lockout's say before a password of this entry is verified: the account (read again if the bind
   * had to wait its turn) with an attempt reserved, or undefined when the bind is refused (locked).
   */
  private async reserveAttempt(target: BindTarget, account: EntryAccount): Promise<EntryAccount | undefined> {
    const { lockout, log } = this.parts;
    if (lockout.isLocked(target.normalized, account.entry)) return undefined;
    const reserved = lockout.reserve(target.normalized, { dn: target.dn, entry: account.entry });
    if (reserved === true) return account;
    if (reserved === false) return undefined;
    log.debug({ dn: target.normalized }, 'bind waits: every attempt left is being verified');
    if (!(await reserved)) return undefined;
    // Its turn came: the entry may have changed (locked by the admin, a new password) while it waited.
    const current = this.lookup(target);
    if (hasEntry(current) && !lockout.isLocked(target.normalized, current.entry)) return current;
    lockout.release(target.normalized);
    return undefined;
  }

  /**
   * The stored value the password matches (among the first MAX_VERIFIED_VALUES), or none (after a
   * decoy verification when the account has no value): with the scheme of the value that matched,
   * else of the first one verified.
   */
  private async matchingValue(key: string, password: Buffer, stored: readonly string[]): Promise<Check> {
    if (stored.length === 0) {
      await this.verifyDecoy(key, password);
      return NO_MATCH;
    }
    let first: Check | undefined;
    for (const value of verifiedValues(stored)) {
      const check = await this.verifyOne(key, password, value);
      if (check.matched !== undefined) return check;
      first ??= check;
    }
    return first ?? NO_MATCH;
  }

  /**
   * Does the password match this stored value? For a costly scheme (one whose values record a cost)
   * the verified-bind cache answers when it saw this DN, password and value verify within its TTL.
   */
  private async verifyOne(key: string, password: Buffer, stored: string): Promise<Check> {
    const { registry, bindCache: cache, log } = this.parts;
    const inspected = registry.inspect(stored); // read once: for the cache's question and for the verification
    const scheme = inspected.scheme?.names[0];
    const cacheable = cache.enabled && inspected.cost !== undefined;
    if (cacheable && cache.has(key, password, stored)) {
      log.debug({ dn: key, cacheHits: cache.hits }, 'verified-bind cache hit');
      return { matched: stored, scheme, cached: true };
    }
    const started = performance.now();
    const match = (await registry.verifyInspected(password, inspected)).status === 'match';
    this.floor.observe(performance.now() - started);
    if (match && cacheable) cache.remember(key, password, stored);
    return { matched: match ? stored : undefined, scheme, cached: cacheable ? false : undefined };
  }

  /**
   * A bind of a DN that does not exist (or holds no password): the password is verified against a
   * real account's values (bind-decoys.ts), so that it costs what a wrong password costs; never
   * through the verified-bind cache, and whatever it finds, nobody is bound.
   */
  private async verifyDecoy(name: string, password: Buffer): Promise<void> {
    for (const stored of this.parts.decoys.pick(name)) {
      const started = performance.now();
      await this.parts.registry.verify(password, stored);
      this.floor.observe(performance.now() - started);
    }
  }
}
