/**
 * What a bind of a DN that does not exist verifies, so that it costs what a wrong password for a
 * real account costs and its timing does not tell whether the DN exists. A hash of a random
 * password in the default scheme would not do: the accounts may hold another scheme (an import
 * in SSHA512 while serve writes PBKDF2), and the two costs then do not even overlap. So the decoys
 * are real stored userPassword values: a small sample read from the store at start, refreshed
 * from the accounts that binds look up (the mix of schemes and iterations that binds actually
 * meet). An unknown DN verifies the password against the values of one sampled account, picked
 * at random, as many values as a bind of that account would verify.
 *
 * A decoy verification never binds anyone, whatever its outcome, and never goes through the
 * verified-bind cache (authenticate.ts verifies it directly). With no account in the store yet, the
 * random hash in the default scheme is the decoy.
 */
import { randomInt } from 'node:crypto';
import type { DirectoryStore } from '../store/index.js';
import { values } from '../store/index.js';
import { verifiedValues } from './verified-values.js';

/** Accounts whose stored values are kept as decoys. */
const DECOY_ACCOUNTS = 16;
/** Entries read at most at start to find them (a bounded scan, so start stays fast). */
const START_SCAN_LIMIT = 1000;
/** One lookup in this many replaces a sampled account once the sample is full: it follows the mix cheaply. */
const REFRESH_ONE_IN = 8;

/** Up to `limit` accounts' userPassword values (as a bind would verify them), from the start of the store. */
export async function readDecoys(store: DirectoryStore, limit = DECOY_ACCOUNTS): Promise<string[][]> {
  const found: string[][] = [];
  let scanned = 0;
  for (const suffix of await store.suffixes()) {
    for await (const entry of store.search(suffix, 'sub')) {
      const stored = values(entry, 'userPassword');
      if (stored.length > 0) found.push(verifiedValues(stored).map((value) => value.toString('utf8')));
      scanned += 1;
      if (found.length >= limit || scanned >= START_SCAN_LIMIT) return found;
    }
  }
  return found;
}

export class BindDecoys {
  private readonly sample: (readonly string[])[];

  constructor(initial: readonly (readonly string[])[], private readonly fallback: string, private readonly size = DECOY_ACCOUNTS) {
    this.sample = initial.filter((stored) => stored.length > 0).slice(0, size);
  }

  /** The stored values of an account a bind looked up: kept while the sample fills, then now and then in place of a random one. */
  offer(stored: readonly string[]): void {
    if (stored.length === 0) return;
    if (this.sample.length < this.size) this.sample.push(verifiedValues(stored));
    else if (randomInt(REFRESH_ONE_IN) === 0) this.sample[randomInt(this.size)] = verifiedValues(stored);
  }

  /** The values a bind of an unknown DN verifies: one sampled account's, at random. */
  pick(): readonly string[] {
    return this.sample.length === 0 ? [this.fallback] : this.sample[randomInt(this.sample.length)]!;
  }
}
