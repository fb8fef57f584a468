/**
 * What a bind of a DN that does not exist verifies, so that it costs what a wrong password for a
 * real account costs and its timing does not tell whether the DN exists. A hash of a random
 * password in the default scheme would not do: the accounts may hold another scheme (an import
 * in SSHA512 while serve writes PBKDF2), and the two costs then do not even overlap. So the decoys
 * are real accounts: a small sample read from the store at start (the same on every serving
 * thread), filled from the accounts binds look up while it is short.
 *
 * An unknown DN verifies the password against the values one sampled account holds now (read
 * again from the store, so an account re-encoded since is followed), as many as a bind of it
 * would verify; which account is fixed by a hash of the DN. So each unknown DN costs the same at
 * every try, on every thread, as a real account does: a decoy picked at random for each bind let
 * a few spaced tries tell an unknown DN (its cost jumping between the sample's schemes) from an
 * account (found in review, 2026-12-07).
 *
 * A decoy verification never binds anyone, whatever its outcome, and never goes through the
 * verified-bind cache (authenticate.ts verifies it directly). With no account in the store yet, the
 * random hash in the default scheme is the decoy.
 */
import { createHash } from 'node:crypto';
import type { DirectoryStore } from '../store/index.js';
import { dnKey, parseDn, values } from '../store/index.js';
import { verifiedValues } from './verified-values.js';

/** Accounts kept as decoys. */
const DECOY_ACCOUNTS = 16;
/** Entries read at most at start to find them (a bounded scan, so start stays fast). */
const START_SCAN_LIMIT = 1000;

/** A sampled account: its dnKey, and its values when sampled (used if it no longer holds any). */
export interface DecoyAccount {
  readonly key: string;
  readonly stored: readonly string[];
}

/** Up to `limit` accounts with a userPassword, from the start of the store. */
export async function readDecoys(store: DirectoryStore, limit = DECOY_ACCOUNTS): Promise<DecoyAccount[]> {
  const found: DecoyAccount[] = [];
  let scanned = 0;
  for (const suffix of await store.suffixes()) {
    for await (const entry of store.search(suffix, 'sub')) {
      const stored = values(entry, 'userPassword');
      if (stored.length > 0) found.push({ key: dnKey(parseDn(entry.dn)), stored: verifiedValues(stored).map((value) => value.toString('utf8')) });
      scanned += 1;
      if (found.length >= limit || scanned >= START_SCAN_LIMIT) return found;
    }
  }
  return found;
}

/** An account's userPassword values as the store holds them now (undefined or empty: none). */
export type CurrentValues = (key: string) => readonly Buffer[] | undefined;

export class BindDecoys {
  private readonly sample: DecoyAccount[];

  constructor(
    initial: readonly DecoyAccount[], private readonly fallback: string, private readonly current: CurrentValues,
    private readonly size = DECOY_ACCOUNTS,
  ) {
    this.sample = initial.filter((account) => account.stored.length > 0).slice(0, size);
  }

  /** An account a bind looked up: kept while the sample is short. */
  offer(key: string, stored: readonly string[]): void {
    if (stored.length === 0 || this.sample.length >= this.size || this.sample.some((account) => account.key === key)) return;
    this.sample.push({ key, stored: verifiedValues(stored) });
  }

  /** The values a bind of the unknown DN `name` (normalized) verifies: those of the sampled account its hash names. */
  pick(name: string): readonly string[] {
    if (this.sample.length === 0) return [this.fallback];
    const account = this.sample[createHash('sha256').update(name).digest().readUInt32BE(0) % this.sample.length]!;
    const now = this.current(account.key);
    return now && now.length > 0 ? verifiedValues(now).map((value) => value.toString('utf8')) : account.stored;
  }
}
