/**
 * Re-encoding on bind (--deprecated-schemes, --upgrade-iterations, --upgrade-cost): after a successful bind
 * whose stored value the policy wants replaced, the password (known only now) is hashed with
 * the default scheme and stored in place of that exact value, after the bind has answered. It
 * runs under the entry's lock and writes only if the old value is still there, so a password
 * changed meanwhile is never overwritten. One re-encoding per account at a time; each is
 * counted in its log line ("reencoded").
 */
import type { Logger } from 'pino';
import { parseStoredValue, type SchemeRegistry } from '../password/index.js';
import { rehashReason, type RehashRule } from './settings.js';
import type { SchemeParams } from '../../schemes/scheme.js';
import { updateEntry, values, type DirectoryStore, type Dn, type Entry, type Modification } from '../store/index.js';
import type { BackgroundTasks } from './background.js';

/** The userPassword values with `old` replaced by `fresh`, or undefined when `old` is no longer stored. */
function replacing(entry: Entry, old: Buffer, fresh: Buffer): Modification[] | undefined {
  const current = values(entry, 'userPassword');
  if (!current.some((value) => value.equals(old))) return undefined;
  return [{ op: 'replace', attribute: 'userPassword', values: current.map((value) => (value.equals(old) ? fresh : value)) }];
}

interface UpgradeOptions {
  readonly registry: SchemeRegistry;
  readonly store: DirectoryStore;
  readonly log: Logger;
  readonly background: BackgroundTasks;
  /** Where re-encodings are counted (shared by every serving thread). */
  /** Counts one more re-encoding (over every serving thread) and returns the total so far. */
  readonly countReencoded: () => number;
  /** What to re-encode. */
  readonly rule: RehashRule;
  /** The default scheme's name, and the parameters it writes with. */
  readonly scheme: string;
  readonly params: SchemeParams;
}

export class PasswordUpgrades {
  /** Accounts being re-encoded (normalized DNs). */
  private readonly pending = new Set<string>();

  constructor(private readonly options: UpgradeOptions) {}

  /** Does the policy re-encode anything at all? */
  get active(): boolean {
    const { rule } = this.options;
    return rule.deprecated.size > 0 || rule.minIterations !== undefined || rule.minCost !== undefined;
  }

  /** After a successful bind that matched `stored`: re-encode it in the background if the policy says so. */
  consider(dn: Dn, key: string, password: Uint8Array, stored: string): void {
    if (!this.active || this.pending.has(key)) return;
    const reason = rehashReason(this.options.registry, this.options.rule, stored);
    if (reason === undefined) return;
    this.pending.add(key);
    const copy = Buffer.from(password);
    this.options.background.run('re-encoding a password', async () => {
      try {
        await this.reencode(dn, key, copy, stored, reason);
      } finally {
        copy.fill(0);
        this.pending.delete(key);
      }
    });
  }

  private async reencode(dn: Dn, key: string, password: Buffer, stored: string, reason: string): Promise<void> {
    const { registry, store, log, scheme, params } = this.options;
    const fresh = Buffer.from(await registry.encode(scheme, password, params), 'utf8');
    const written = await updateEntry(store, dn, (entry) => replacing(entry, Buffer.from(stored, 'utf8'), fresh));
    const from = parseStoredValue(stored).name;
    if (!written) {
      log.info({ dn: key, from }, 'password not re-encoded: it changed meanwhile');
      return;
    }
    const reencoded = this.options.countReencoded();
    log.info({ dn: key, from, to: scheme, reason, reencoded }, 'password re-encoded after bind');
  }
}
