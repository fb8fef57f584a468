/**
 * Lockout after failed binds (off unless --max-failures is set), with OpenLDAP ppolicy's
 * attribute names. Failures are counted in memory, per account, within --failure-window, in a
 * bounded map: a failed bind writes nothing to disk. The failure that reaches the limit writes
 * the lock (pwdAccountLockedTime, with the failures counted as pwdFailureTime) in one synced
 * write under the entry's lock, before its bind answers; while that write runs, the account
 * already counts as locked. A locked account stays locked for --lockout-duration seconds (0:
 * until the admin deletes or replaces pwdAccountLockedTime). A restart forgets the failures not
 * yet persisted, never a lock. The admin (not an entry) is never locked out.
 */
import type { Logger } from 'pino';
import { generalizedTime, updateEntry, values, type DirectoryStore, type Dn, type Entry, type Modification } from '../store/index.js';
import type { PasswordPolicy } from '../password/index.js';
import type { BackgroundTasks } from './background.js';
import { parseGeneralizedTime } from './filter/values.js';

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

  /** Is the account locked (its stored lock has not expired, or its lock is being written)? */
  isLocked(key: string, entry: Entry): boolean {
    return this.enabled && (this.locking.has(key) || this.lockedByRecord(entry));
  }

  /** A wrong password for an account. The failure that reaches the limit writes the lock before it resolves. */
  async failed(dn: Dn, key: string): Promise<void> {
    if (!this.enabled) return;
    const now = this.now();
    const recent = this.recentFailures(key, now);
    recent.push(now);
    this.track(key, recent);
    if (recent.length < this.policy.maxFailures || this.locking.has(key)) return;
    this.locking.add(key);
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

  /** A successful bind: the failures are forgotten; stored failure records and an expired lock are removed, after the answer. */
  succeeded(dn: Dn, key: string, entry: Entry): void {
    this.failures.delete(key);
    if (values(entry, FAILURES).length === 0 && values(entry, LOCKED).length === 0) return;
    this.background.run('clearing lockout records', async () => {
      await updateEntry(this.store, dn, (current) => (this.lockedByRecord(current) ? undefined : this.clearRecords(current)));
    });
  }

  private lockedByRecord(entry: Entry): boolean {
    const locks = values(entry, LOCKED);
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
