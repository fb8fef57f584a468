/**
 * The password policy at run time. Its settings come from serve's flags and --config
 * (settings.ts has them with their defaults); here are the parts that keep state:
 * lockout (lockout.ts), the verified-bind cache (bind-cache.ts), re-encoding after
 * binds (upgrade.ts), and the background writes they make (background.ts). The bind
 * handler asks it; quality of new passwords is checked where they are written (src/server/password-values.ts).
 */
import type { Logger } from 'pino';
import type { SchemeRegistry } from '../password/index.js';
import { policyParams, rehashRule, type PasswordPolicy } from './settings.js';
import { VerifiedBindCache } from './bind-cache.js';
import type { SchemeParams } from '../../schemes/scheme.js';
import type { DirectoryStore } from '../store/index.js';
import { BackgroundTasks } from './background.js';
import { Lockout, TRACKED_ACCOUNTS } from './lockout.js';
import { PasswordUpgrades } from './upgrade.js';
import { Authenticator, type AdminAccount } from './authenticate.js';
import type { BindDecoys } from './bind-decoys.js';

/** What the runtime is made of. */
interface PolicyParts {
  readonly settings: PasswordPolicy;
  readonly registry: SchemeRegistry;
  readonly store: DirectoryStore;
  readonly log: Logger;
  /** Counts one more re-encoding (over every serving thread) and returns the total. */
  readonly countReencoded: () => number;
  /** Counts one more account locked by lockout (for monitoring). */
  readonly countLocked?: () => void;
  readonly admin: AdminAccount;
  /** What an unknown bind DN verifies (bind-decoys.ts). */
  readonly decoys: BindDecoys;
}

export interface PolicyRuntime {
  readonly settings: PasswordPolicy;
  /** Parameters the default scheme writes with (defaultIterations). */
  readonly defaultParams: SchemeParams;
  readonly lockout: Lockout;
  readonly bindCache: VerifiedBindCache;
  readonly upgrades: PasswordUpgrades;
  /** Writes made after answering; shutdown drains them before closing the database. */
  readonly background: BackgroundTasks;
  /** Simple binds' verdicts, under all of the above. */
  readonly authenticator: Authenticator;
}

/**
 * Accounts lockout keeps in memory: TRACKED_ACCOUNTS, or (for tests that fill the map without
 * 100,000 accounts) LEVELDAP_LOCKOUT_TRACKED_ACCOUNTS, a positive integer; not a setting.
 */
function trackedAccounts(): number {
  const asked = Number(process.env.LEVELDAP_LOCKOUT_TRACKED_ACCOUNTS);
  return Number.isSafeInteger(asked) && asked > 0 ? asked : TRACKED_ACCOUNTS;
}

/** The runtime of a policy whose default scheme is resolved (its first name) and checked (checkPolicy). */
export function createPolicyRuntime(parts: PolicyParts): PolicyRuntime {
  const { settings, registry, store, log, countReencoded } = parts;
  const background = new BackgroundTasks(log);
  const defaultParams = policyParams(registry, settings.defaultScheme, settings);
  const lockout = new Lockout(settings, store, log, background, Date.now, trackedAccounts(), parts.countLocked);
  const bindCache = new VerifiedBindCache(settings.bindCacheTtl, settings.bindCacheSize);
  const upgrades = new PasswordUpgrades({
    registry, store, log, background, countReencoded, rule: rehashRule(registry, settings), scheme: settings.defaultScheme, params: defaultParams,
  });
  const authenticator = new Authenticator({ registry, store, admin: parts.admin, lockout, bindCache, upgrades, decoys: parts.decoys, log });
  return { settings, defaultParams, background, lockout, bindCache, upgrades, authenticator };
}
