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

export interface PolicyRuntime {
  readonly settings: PasswordPolicy;
  /** Parameters the default scheme writes with (defaultIterations). */
  readonly defaultParams: SchemeParams;
  readonly lockout: Lockout;
  readonly bindCache: VerifiedBindCache;
  readonly upgrades: PasswordUpgrades;
  /** Writes made after answering; shutdown drains them before closing the database. */
  readonly background: BackgroundTasks;
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
export function createPolicyRuntime(
  settings: PasswordPolicy, registry: SchemeRegistry, store: DirectoryStore, log: Logger, countReencoded: () => number,
): PolicyRuntime {
  const background = new BackgroundTasks(log);
  const defaultParams = policyParams(registry, settings.defaultScheme, settings);
  return {
    settings,
    defaultParams,
    background,
    lockout: new Lockout(settings, store, log, background, Date.now, trackedAccounts()),
    bindCache: new VerifiedBindCache(settings.bindCacheTtl, settings.bindCacheSize),
    upgrades: new PasswordUpgrades({
      registry, store, log, background, countReencoded, rule: rehashRule(registry, settings), scheme: settings.defaultScheme, params: defaultParams,
    }),
  };
}
