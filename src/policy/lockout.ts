/**
 * Lockout after failed binds (off unless --max-failures is set), with OpenLDAP ppolicy's
 * attribute names. Failures are counted in memory, per account, within --failure-window, in a
 * bounded map (TRACKED_ACCOUNTS): a failed bind writes nothing to disk while the map has room.
 * When it is full, accounts whose failures all left the window go first; then the account that
 * failed least recently (and has no bind being verified) has its failures stored in its entry as
 * pwdFailureTime, as ppolicy stores every failure, before it leaves the map; a bind of an entry
 * counts the pwdFailureTime values it holds (inside the window, after its last lock) with those
 * in memory. So no account inside its window is ever forgotten, however many others fail. That
 * write is not synced: LevelDB hands it to the OS before it resolves (it survives kill -9, not an
 * OS crash), which is more than the in-memory count it replaces ever had, and a failed bind
 * never waits for an fsync. The failure that reaches the limit writes
 * the lock (pwdAccountLockedTime, with the failures counted as pwdFailureTime) in one synced
 * write under the entry's lock, before its bind answers; while that write runs, the account
 * already counts as locked, and if it fails (a full disk) the account stays locked in memory
 * while the write is tried again every few seconds. A locked account stays locked for
 * --lockout-duration seconds (0: until the admin deletes or replaces pwdAccountLockedTime). A restart forgets the failures not
 * yet persisted, never a lock. The admin (not an entry) is never locked out.
 *
 * A bind reserves an attempt before it verifies a password (reserve), and ends it with failed,
 * succeeded or release. Recent failures plus attempts being verified never exceed the limit:
 * when they reach it, further binds of the account wait in line for an attempt to end (a
 * success frees attempts, a failure may lock the account and refuses them all). So at most
 * maxFailures passwords are verified for an account between two successes within the window,
 * concurrent binds included, and none is being verified when the lock is set.
 */
import type { Logger } from 'pino';
import { generalizedTime, parseGeneralizedTime, updateEntry, values, type DirectoryStore, type SharedFailures, type Dn, type Entry, type Modification } from '../store/index.js';
import type { PasswordPolicy } from './settings.js';
import type { BackgroundTasks } from './background.js';

const LOCKED = 'pwdAccountLockedTime';
const FAILURES = 'pwdFailureTime';
/** Accounts whose recent failures are kept in memory at most; beyond, the one that failed least recently is stored in its entry. */
export const TRACKED_ACCOUNTS = 100_000;
/** How often a lock that could not be stored (writes failing: a full disk, an I/O error) is tried again; the account stays locked meanwhile. */
const LOCK_RETRY_MILLIS = 5000;

const time = (millis: number): Buffer => Buffer.from(generalizedTime(new Date(millis), true));

/**
 * When the account was locked. OpenLDAP's 000001010000Z (locked by an administrator) and a
 * value that does not parse lock it for good: a mistyped lock must not unlock the account.
 */
function lockedAt(value: Buffer): number {
  const parsed = parseGeneralizedTime(value);
  return parsed === undefined || value.toString('latin1').startsWith('0000') ? Infinity : parsed;
}

/** The lock and the failures that caused it. */
function lockRecords(now: number, failures: readonly number[]): Modification[] {
  const failureTimes = [...new Set(failures.map((millis) => time(millis).toString()))].map((text) => Buffer.from(text));
  return [
    { op: 'replace', attribute: LOCKED, values: [time(now)] },
    { op: 'replace', attribute: FAILURES, values: failureTimes },
  ];
}

/** An account's recent failure times (milliseconds, ascending, each distinct), and its DN for writing them. */
interface Failures {
  readonly dn: Dn;
  readonly times: number[];
}

/** Failure times stored in an entry that still count: inside the window and after the entry's last lock. */
function storedFailures(entry: Entry, windowStart: number): number[] {
  const lockTimes = values(entry, LOCKED).map(lockedAt);
  const after = Math.max(windowStart, ...lockTimes);
  return values(entry, FAILURES).map(parseGeneralizedTime).filter((at): at is number => at !== undefined && at > after);
}

/** The two lists of times as one, ascending, each time once, at most `limit` (the latest). */
function merged(a: readonly number[], b: readonly number[], limit: number): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y).slice(-limit);
}

export class Lockout {
  /** Recent failures per normalized DN, the least recently failing account first. */
  private readonly failures = new Map<string, Failures>();
  /** Failures being stored in their entry (evicted from `failures`): counted until the write ends. */
  private readonly evicting = new Map<string, Failures>();
  /** Accounts whose stored failures a success has voided, until they are removed from the entry. */
  private readonly clearing = new Set<string>();
  private evictions = 0;
  /** Accounts whose lock is being written: locked already. */
  private readonly locking = new Set<string>();
  /** Attempts being verified per account (never 0: an account leaves when its last attempt ends). */
  private readonly inFlight = new Map<string, number>();
  /** Binds waiting for an attempt, first come first served, per account (never empty). */
  private readonly waiting = new Map<string, Array<(granted: boolean) => void>>();
  private locks = 0;

  constructor(
    private readonly policy: PasswordPolicy,
    private readonly store: DirectoryStore,
    private readonly log: Logger,
    private readonly background: BackgroundTasks,
    private readonly now: () => number = Date.now,
    private readonly trackedAccounts = TRACKED_ACCOUNTS,
    /** Told of every lock set (monitoring's count). */
    private readonly countLocked: () => void = () => {},
    private readonly lockRetryMillis = LOCK_RETRY_MILLIS,
  ) {}

  get enabled(): boolean {
    return this.policy.maxFailures > 0;
  }

  /** Accounts with failures counted in memory now (for tests). */
  get tracked(): number {
    return this.failures.size;
  }

  /** Accounts whose failures were stored in their entry to make room, since start. */
  get evicted(): number {
    return this.evictions;
  }

  /** Attempts being verified and binds waiting for one, over all accounts (for tests). */
  get pending(): { readonly accounts: number; readonly inFlight: number; readonly waiting: number } {
    let inFlight = 0;
    let waiting = 0;
    for (const count of this.inFlight.values()) inFlight += count;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { accounts: new Set([...this.inFlight.keys(), ...this.waiting.keys()]).size, inFlight, waiting };
  }

  /** Is the account locked (its stored lock has not expired, or its lock is being written)? */
  isLocked(key: string, entry: Entry): boolean {
    return this.enabled && (this.locking.has(key) || this.lockedByRecord(entry));
  }

  /**
   * Is the account locked now, by its stored lock as the store holds it at this moment or by the
   * lock being written? Asked after a password matched, before the bind answers success.
   */
  lockedNow(dn: Dn, key: string): boolean {
    return this.enabled && (this.locking.has(key) || this.lockedByValues(this.store.valuesSync(dn, LOCKED) ?? []));
  }

  /**
   * May a bind of this account verify a password? true: an attempt is reserved (end it with
   * failed, succeeded or release). false: no (the lock is being written). A promise: every
   * attempt left is being verified; it resolves once this bind's turn comes, true with an
   * attempt reserved, false when the account got locked meanwhile. Given the entry as the bind
   * read it, its stored failures count too (they come back into memory).
   */
  reserve(key: string, account?: { readonly dn: Dn; readonly entry: Entry }): boolean | Promise<boolean> {
    if (this.locking.has(key)) return false;
    if (account) this.recall(key, account.dn, account.entry);
    const inFlight = this.inFlight.get(key) ?? 0;
    const queue = this.waiting.get(key);
    // Nothing being verified: one attempt whatever the failures. Only a lock refuses a password
    // (the draft's pwdAccountLockedTime); failures at the limit with no lock in force come from an
    // admin's write (a lock back-dated past its duration, failure times written): the right
    // password binds, and a wrong one locks.
    if (queue === undefined && (inFlight === 0 || inFlight + this.recentFailures(key, this.now()).length < this.policy.maxFailures)) {
      this.inFlight.set(key, inFlight + 1);
      return true;
    }
    return new Promise((resolve) => {
      if (queue) queue.push(resolve);
      else this.waiting.set(key, [resolve]);
    });
  }

  /** Ends a reserved attempt that reached no verdict (an error, a lock seen after waiting, a lock set during the verification). */
  release(key: string): void {
    this.endAttempt(key);
  }

  /**
   * A wrong password for an account (ends its attempt). The failure that reaches the limit writes
   * the lock before it resolves; one that needs room in the map stores another account's failures first.
   */
  async failed(dn: Dn, key: string): Promise<void> {
    if (!this.enabled) return;
    const now = this.now();
    const own = this.recentFailures(key, now);
    const at = Math.max(now, (own.at(-1) ?? 0) + 1); // distinct times: each one stored is one failure
    own.push(at);
    // Counted at once: this node's failures being shared meanwhile count it. Only this node's own
    // failures are kept here: the other nodes' are read from PostgreSQL at each failure, and a
    // lock clears them there (lockStored); kept here too, they outlived the lock that counted them.
    const evicted = this.track(key, dn, own);
    const shared = this.store.sharedFailures;
    const recent = shared ? await this.withOtherNodes(shared, key, at, now) : own; // no await alone: the lock is decided at once
    const locks = recent.length >= this.policy.maxFailures && !this.locking.has(key);
    if (locks) this.locking.add(key);
    this.endAttempt(key);
    if (locks) await this.lock(dn, key, recent.at(-1)!, recent); // locked at its last failure: none of those counts again
    await evicted;
  }

  /**
   * The account's failures as this node knows them once this one (at) is shared: its own (those
   * counted while the round trip ran included) with the other nodes' inside the window, learned
   * as this one is recorded; the latest maxFailures of them.
   */
  private async withOtherNodes(shared: SharedFailures, key: string, at: number, now: number): Promise<number[]> {
    const others = await shared.failed(key, at, this.windowStart(now));
    return merged(this.recentFailures(key, this.now()), [at, ...others], this.policy.maxFailures);
  }

  /**
   * Stores the lock. If it cannot be stored (writes failing), the account stays locked in memory
   * (`locking`) and the write is tried again every lockRetryMillis until it is stored, or until
   * the lock would have expired: a failed write must not hand out more attempts.
   */
  private async lock(dn: Dn, key: string, at: number, recent: readonly number[]): Promise<void> {
    if (await this.storeLock(dn, key, at, recent, true)) this.lockStored(key);
    else this.retryLock(dn, key, at, recent);
  }

  /** Writes the lock: true once done (stored, or the entry is gone), false if the write failed (logged the first time). */
  private async storeLock(dn: Dn, key: string, at: number, recent: readonly number[], first: boolean): Promise<boolean> {
    try {
      if (await updateEntry(this.store, dn, () => lockRecords(at, recent))) {
        this.locks += 1;
        this.countLocked();
        this.log.warn({ dn: key, failures: recent.length, lockouts: this.locks, ...(!first && { late: true }) }, 'account locked after failed binds');
      }
      return true;
    } catch (error) {
      if (first) this.log.error({ err: error, dn: key }, 'could not store an account lock: the account stays locked in memory, and the lock is stored once writes work again');
      return false;
    }
  }

  private retryLock(dn: Dn, key: string, at: number, recent: readonly number[]): void {
    const expires = this.policy.lockoutDuration > 0 ? at + this.policy.lockoutDuration * 1000 : Infinity;
    setTimeout(() => {
      void (async () => {
        if (this.now() >= expires || await this.storeLock(dn, key, at, recent, false)) this.lockStored(key);
        else this.retryLock(dn, key, at, recent);
      })();
    }, this.lockRetryMillis).unref();
  }

  /**
   * The lock is stored (or no longer needed): the account's state is its entry's again, and the
   * failures other nodes shared go too. The lock records the failures that caused it; left in
   * the shared table they counted again once the lock ended, and one more failure locked the
   * account again (review 2026-12-08).
   */
  private lockStored(key: string): void {
    this.locking.delete(key);
    this.failures.delete(key);
    this.store.sharedFailures?.cleared(key);
  }

  /**
   * A successful bind (ends its attempt): the failures are forgotten; stored failure records and
   * an expired lock are removed, after the answer (and until then they no longer count).
   */
  succeeded(dn: Dn, key: string, entry: Entry): void {
    const wasEvicting = this.forget(key);
    this.endAttempt(key);
    if (!wasEvicting && values(entry, FAILURES).length === 0 && values(entry, LOCKED).length === 0) return;
    this.clearing.add(key);
    this.background.run('clearing lockout records', async () => {
      try {
        await updateEntry(this.store, dn, (current) => (this.lockedByRecord(current) ? undefined : this.clearRecords(current)));
      } finally {
        this.clearing.delete(key);
      }
    });
  }

  /**
   * The account's password was changed (its pwdFailureTime removed in that write): the failures
   * counted in memory go too, as ppolicy forgets them. A lock stays (it is the entry's).
   */
  passwordChanged(key: string): void {
    this.forget(key);
  }

  /**
   * Forgets the account's failures: in memory (and the shared ones, when this node had some),
   * and those being stored (that write, still to come, skips itself). Whether some were being stored.
   */
  private forget(key: string): boolean {
    if (this.failures.delete(key)) this.store.sharedFailures?.cleared(key);
    return this.evicting.delete(key);
  }

  /** One attempt of the account fewer; the attempts now free go to the binds waiting, in order, or all are refused if the lock is being written. */
  private endAttempt(key: string): void {
    const count = this.inFlight.get(key);
    if (count === undefined) return;
    if (count > 1) this.inFlight.set(key, count - 1);
    else this.inFlight.delete(key);
    this.handOut(key);
  }

  private handOut(key: string): void {
    const queue = this.waiting.get(key);
    if (queue === undefined) return;
    let inFlight = this.inFlight.get(key) ?? 0;
    if (!this.locking.has(key)) {
      const failures = this.recentFailures(key, this.now()).length;
      while (queue.length > 0 && inFlight + failures < this.policy.maxFailures) {
        inFlight += 1;
        this.inFlight.set(key, inFlight);
        queue.shift()!(true);
      }
      if (queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      if (inFlight > 0) return; // the next attempt to end hands out again
    }
    // Locked, or nothing left to wait for: every waiting bind is refused.
    this.waiting.delete(key);
    for (const resolve of queue) resolve(false);
  }

  private lockedByRecord(entry: Entry): boolean {
    return this.lockedByValues(values(entry, LOCKED));
  }

  private lockedByValues(locks: readonly Buffer[]): boolean {
    if (locks.length === 0) return false;
    if (this.policy.lockoutDuration === 0) return true;
    return this.now() < Math.max(...locks.map(lockedAt)) + this.policy.lockoutDuration * 1000;
  }

  private clearRecords(entry: Entry): Modification[] | undefined {
    const present = [LOCKED, FAILURES].filter((attribute) => values(entry, attribute).length > 0);
    return present.length === 0 ? undefined : present.map((attribute) => ({ op: 'replace', attribute, values: [] }));
  }

  /** Failures after this time (milliseconds) are inside --failure-window at `now`. */
  private windowStart(now: number): number {
    return now - this.policy.failureWindow * 1000;
  }

  /** The account's failures still inside the window (in memory, or being stored), at most the limit's worth. */
  private recentFailures(key: string, now: number): number[] {
    const windowStart = this.windowStart(now);
    const known = this.failures.get(key) ?? this.evicting.get(key);
    return (known?.times ?? []).filter((at) => at > windowStart).slice(-this.policy.maxFailures);
  }

  /** The failures an entry holds (stored when its account made room) count again: back into memory. */
  private recall(key: string, dn: Dn, entry: Entry): void {
    if (this.clearing.has(key) || values(entry, FAILURES).length === 0) return;
    const now = this.now();
    const known = this.recentFailures(key, now);
    const all = merged(known, storedFailures(entry, this.windowStart(now)), this.policy.maxFailures);
    if (all.length === known.length) return;
    const evicted = this.track(key, dn, all);
    if (evicted) this.background.run('storing failed binds', () => evicted);
  }

  /** Records the account's failures as its latest; makes room first when the map is full. */
  private track(key: string, dn: Dn, recent: number[]): Promise<void> | undefined {
    this.failures.delete(key);
    const evicted = this.failures.size >= this.trackedAccounts ? this.makeRoom() : undefined;
    this.failures.set(key, { dn, times: recent });
    return evicted;
  }

  /**
   * One account fewer in the map: those whose failures all left the window go (nothing to keep);
   * if none did, the least recently failing one with no bind being verified or waiting has its
   * failures stored in its entry (the write this returns).
   */
  private makeRoom(): Promise<void> | undefined {
    const windowStart = this.windowStart(this.now());
    for (const [key, record] of this.failures) {
      if (record.times.at(-1)! > windowStart) break;
      this.failures.delete(key);
    }
    if (this.failures.size < this.trackedAccounts) return undefined;
    for (const [key, record] of this.failures) {
      if (this.inFlight.has(key) || this.waiting.has(key) || this.locking.has(key)) continue;
      this.failures.delete(key);
      return this.storeFailures(key, record, windowStart);
    }
    return undefined; // every account is being verified: the map holds one more for now
  }

  /** Stores evicted failures as pwdFailureTime (with those already stored that still count), not synced. */
  private async storeFailures(key: string, record: Failures, windowStart: number): Promise<void> {
    this.evicting.set(key, record);
    this.evictions += 1;
    try {
      await updateEntry(this.store, record.dn, (entry) => {
        if (this.evicting.get(key) !== record || this.lockedByRecord(entry)) return undefined; // a success or a lock came first
        const times = merged(record.times.filter((at) => at > windowStart), storedFailures(entry, windowStart), this.policy.maxFailures);
        return [{ op: 'replace', attribute: FAILURES, values: times.map(time) }];
      }, { sync: false });
    } catch (error) {
      // Never forget them: they stay counted in memory (the map holds one more).
      this.log.error({ err: error, dn: key }, 'could not store failed binds; they stay in memory');
      if (this.evicting.get(key) === record && !this.failures.has(key)) this.failures.set(key, record);
    } finally {
      if (this.evicting.get(key) === record) this.evicting.delete(key);
    }
  }
}
