/**
 * Lockout after failed binds (off unless --max-failures is set), with OpenLDAP ppolicy's
 * attribute names. Failures are counted in memory, per account, within --failure-window, in a
 * bounded map: a failed bind writes nothing to disk. The failure that reaches the limit writes
 * the lock (pwdAccountLockedTime, with the failures counted as pwdFailureTime) in one synced
 * write under the entry's lock, before its bind answers; while that write runs, the account
 * already counts as locked. A locked account stays locked for --lockout-duration seconds (0:
 * until the admin deletes or replaces pwdAccountLockedTime). A restart forgets the failures not
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
import { generalizedTime, parseGeneralizedTime, updateEntry, values, type DirectoryStore, type Dn, type Entry, type Modification } from '../store/index.js';
import type { PasswordPolicy } from '../password/index.js';
import type { BackgroundTasks } from './background.js';

const LOCKED = 'pwdAccountLockedTime';
const FAILURES = 'pwdFailureTime';
/** Accounts whose recent failures are kept at most; beyond, the one that failed least recently is forgotten. */
export const TRACKED_ACCOUNTS = 100_000;

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

export class Lockout {
  /** Recent failure times (milliseconds) per normalized DN, the least recently failing account first. */
  private readonly failures = new Map<string, number[]>();
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
  ) {}

  get enabled(): boolean {
    return this.policy.maxFailures > 0;
  }

  /** Accounts with failures counted now (for tests). */
  get tracked(): number {
    return this.failures.size;
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
   * attempt reserved, false when the account got locked meanwhile.
   */
  reserve(key: string): boolean | Promise<boolean> {
    if (this.locking.has(key)) return false;
    const inFlight = this.inFlight.get(key) ?? 0;
    const queue = this.waiting.get(key);
    if (queue === undefined && inFlight + this.recentFailures(key, this.now()).length < this.policy.maxFailures) {
      this.inFlight.set(key, inFlight + 1);
      return true;
    }
    // Nothing being verified: the failures alone use up the attempts (the lock is set as they do; defensive).
    if (inFlight === 0 && queue === undefined) return false;
    return new Promise((resolve) => {
      if (queue) queue.push(resolve);
      else this.waiting.set(key, [resolve]);
    });
  }

  /** Ends a reserved attempt that reached no verdict (an error, a lock seen after waiting, a lock set during the verification). */
  release(key: string): void {
    this.endAttempt(key);
  }

  /** A wrong password for an account (ends its attempt). The failure that reaches the limit writes the lock before it resolves. */
  async failed(dn: Dn, key: string): Promise<void> {
    if (!this.enabled) return;
    const now = this.now();
    const recent = this.recentFailures(key, now);
    recent.push(now);
    this.track(key, recent);
    const locks = recent.length >= this.policy.maxFailures && !this.locking.has(key);
    if (locks) this.locking.add(key);
    this.endAttempt(key);
    if (!locks) return;
    try {
      if (await updateEntry(this.store, dn, () => lockRecords(now, recent))) {
        this.locks += 1;
        this.log.warn({ dn: key, failures: recent.length, lockouts: this.locks }, 'account locked after failed binds');
      }
    } catch (error) {
      this.log.error({ err: error, dn: key }, 'could not store an account lock');
    } finally {
      this.locking.delete(key);
      this.failures.delete(key);
    }
  }

  /** A successful bind (ends its attempt): the failures are forgotten; stored failure records and an expired lock are removed, after the answer. */
  succeeded(dn: Dn, key: string, entry: Entry): void {
    this.failures.delete(key);
    this.endAttempt(key);
    if (values(entry, FAILURES).length === 0 && values(entry, LOCKED).length === 0) return;
    this.background.run('clearing lockout records', async () => {
      await updateEntry(this.store, dn, (current) => (this.lockedByRecord(current) ? undefined : this.clearRecords(current)));
    });
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

  /** The account's failures still inside the window, at most the limit's worth. */
  private recentFailures(key: string, now: number): number[] {
    const windowStart = now - this.policy.failureWindow * 1000;
    return (this.failures.get(key) ?? []).filter((at) => at > windowStart).slice(-this.policy.maxFailures);
  }

  private track(key: string, recent: number[]): void {
    this.failures.delete(key);
    if (this.failures.size >= TRACKED_ACCOUNTS) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, recent);
  }
}
