/**
 * The password policy: which scheme new passwords are written with (online and by import-ldif),
 * which stored values are re-encoded after a successful bind, lockout after failed binds,
 * quality of new passwords, and the verified-bind cache. Plain data with documented defaults
 * (DEFAULT_POLICY), one table of settings (POLICY_SETTINGS) that the command line turns into
 * flags and config-file keys, and the checks that need the scheme registry.
 */
import type { PasswordScheme, SchemeParams, StoredCost } from '../../schemes/scheme.js';
import { SchemeError } from '../password/errors.js';
import { parseStoredValue, type SchemeRegistry } from '../password/registry.js';
import { errorMessage } from '../errors.js';

/** PBKDF2-SHA256 at 10,000 iterations: what OpenLDAP pw-pbkdf2 writes, readable by OpenLDAP and 389 DS. */
export const DEFAULT_SCHEME = 'PBKDF2-SHA256';

export interface PasswordPolicy {
  /** Scheme of every password written online (add, modify, Password Modify) and of the admin's. */
  readonly defaultScheme: string;
  /** Iterations written by the default and import schemes when they take some; else the scheme's own default. */
  readonly defaultIterations?: number;
  /** Other parameters the default and import schemes write with, those each takes (e.g. Argon2's memory, time, parallelism). */
  readonly defaultParams?: SchemeParams;
  /** Scheme import-ldif hashes plain values with; else the default scheme. */
  readonly importScheme?: string;
  /** A successful bind re-encodes a value stored in one of these with the default scheme. */
  readonly deprecatedSchemes: readonly string[];
  /** A successful bind re-encodes a value with fewer iterations than the default scheme writes. */
  readonly upgradeIterations: boolean;
  /** A successful bind re-encodes a value that costs less than the default scheme writes (iterations, memory, passes, bcrypt cost). */
  readonly upgradeCost: boolean;
  /** Failed binds within failureWindow that lock an account (0: no lockout). */
  readonly maxFailures: number;
  /** Seconds a failed bind counts for. */
  readonly failureWindow: number;
  /** Seconds an account stays locked (0: until the admin unlocks it). */
  readonly lockoutDuration: number;
  /** Characters a new plain-text password needs at least. */
  readonly minPasswordLength: number;
  /** Seconds a verified bind of a costly scheme is remembered (0: no cache). */
  readonly bindCacheTtl: number;
  /** Verified binds remembered at most. */
  readonly bindCacheSize: number;
}

export const DEFAULT_POLICY: PasswordPolicy = {
  defaultScheme: DEFAULT_SCHEME,
  deprecatedSchemes: [],
  upgradeIterations: false,
  upgradeCost: false,
  maxFailures: 0,
  failureWindow: 300,
  lockoutDuration: 300,
  minPasswordLength: 8,
  bindCacheTtl: 0,
  bindCacheSize: 10_000,
};

type SettingKind = 'scheme' | 'schemes' | 'boolean' | 'params' | { readonly min: number; readonly max: number };

export interface PolicySetting {
  /** The config-file key; the flag is the same name in kebab case (maxFailures: --max-failures). */
  readonly key: keyof PasswordPolicy;
  readonly kind: SettingKind;
  readonly describe: string;
  /** In the config file only: serve does not use it (import-ldif's own flag is --scheme). */
  readonly fileOnly?: boolean;
}

const DAY = 86_400;

export const POLICY_SETTINGS: readonly PolicySetting[] = [
  { key: 'defaultScheme', kind: 'scheme', describe: 'scheme new passwords are hashed with' },
  { key: 'defaultIterations', kind: { min: 1, max: 100_000_000 }, describe: 'iterations written by the default and import schemes (if they take iterations)' },
  { key: 'defaultParams', kind: 'params', describe: 'parameters the default and import schemes write with, as NAME=VALUE,... (e.g. memory=65536,time=3,parallelism=4; see leveldap schemes)' },
  { key: 'importScheme', kind: 'scheme', describe: 'scheme import-ldif hashes plain values with (default: the default scheme)', fileOnly: true },
  { key: 'deprecatedSchemes', kind: 'schemes', describe: 're-encode values in these schemes (comma-separated) with the default scheme after a successful bind' },
  { key: 'upgradeIterations', kind: 'boolean', describe: 're-encode values with fewer iterations than the default scheme writes after a successful bind' },
  { key: 'upgradeCost', kind: 'boolean', describe: 're-encode values that cost less than the default scheme writes (iterations, memory, passes or bcrypt cost below it) after a successful bind' },
  { key: 'maxFailures', kind: { min: 0, max: 1000 }, describe: 'failed binds within --failure-window that lock an account (0: no lockout)' },
  { key: 'failureWindow', kind: { min: 1, max: 365 * DAY }, describe: 'seconds a failed bind counts for' },
  { key: 'lockoutDuration', kind: { min: 0, max: 365 * DAY }, describe: 'seconds an account stays locked (0: until the admin unlocks it)' },
  { key: 'minPasswordLength', kind: { min: 0, max: 1024 }, describe: 'characters a new plain-text password needs at least' },
  { key: 'bindCacheTtl', kind: { min: 0, max: DAY }, describe: 'seconds a verified bind of a costly scheme is remembered (0: no cache)' },
  { key: 'bindCacheSize', kind: { min: 1, max: 10_000_000 }, describe: 'verified binds remembered at most' },
];

/** The flag of a setting: maxFailures -> max-failures. */
export function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** What is wrong with a value for a setting (as read from JSON or a flag), or undefined. */
export function settingProblem(setting: PolicySetting, value: unknown): string | undefined {
  const { kind } = setting;
  if (kind === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false';
  if (kind === 'scheme') return typeof value === 'string' && value !== '' ? undefined : 'must be a scheme name';
  if (kind === 'params') {
    const isParams = typeof value === 'object' && value !== null && !Array.isArray(value)
      && Object.values(value).every((number) => Number.isSafeInteger(number) && (number as number) >= 0);
    return isParams ? undefined : 'must be an object of parameter names and whole numbers';
  }
  if (kind === 'schemes') {
    const names = Array.isArray(value) && value.every((name) => typeof name === 'string' && name !== '');
    return names ? undefined : 'must be a list of scheme names';
  }
  const whole = typeof value === 'number' && Number.isInteger(value) && value >= kind.min && value <= kind.max;
  return whole ? undefined : `must be a whole number from ${kind.min} to ${kind.max}`;
}

const CLEAR_NAMES = new Set(['CLEAR', 'CLEARTEXT']);

export function isClearScheme(scheme: PasswordScheme): boolean {
  return scheme.names.some((name) => CLEAR_NAMES.has(name.toUpperCase()));
}

/**
 * The scheme to write new passwords with. It must exist and be able to encode; CLEAR is
 * refused unless `allowClear` says the operator really wants passwords stored in clear.
 */
export function resolveDefaultScheme(
  registry: SchemeRegistry, name: string = DEFAULT_SCHEME, allowClear = false,
): PasswordScheme {
  const scheme = registry.require(name);
  if (!scheme.encode) throw new SchemeError(`scheme {${scheme.names[0]}} can only verify, so it cannot be the default`);
  if (isClearScheme(scheme) && !allowClear) {
    throw new SchemeError('refusing CLEAR as the default scheme: passwords would be stored in clear (use --allow-clear-default to insist)');
  }
  return scheme;
}

const takesIterations = (scheme: PasswordScheme): boolean => (scheme.params ?? []).some((spec) => spec.name === 'iterations');

/** Parameters to encode with `scheme` under the policy: those of defaultParams it takes, and defaultIterations when it takes iterations. */
export function policyParams(registry: SchemeRegistry, scheme: string, policy: PasswordPolicy): SchemeParams {
  const found = registry.require(scheme);
  const takes = new Set((found.params ?? []).map((spec) => spec.name));
  const params = Object.fromEntries(Object.entries(policy.defaultParams ?? {}).filter(([name]) => takes.has(name)));
  const iterations = policy.defaultIterations;
  return iterations !== undefined && takesIterations(found) ? { ...params, iterations } : params;
}

function requireScheme(registry: SchemeRegistry, name: string, setting: string): PasswordScheme {
  try {
    return registry.require(name);
  } catch (error) {
    throw new SchemeError(`${setting}: ${errorMessage(error)}`);
  }
}

/**
 * Checks the policy's scheme names and numbers against the registry (SchemeError for what
 * cannot work): the schemes exist, the iterations fit the default scheme, and the default
 * scheme is not deprecated (every bind would re-encode).
 */
export function checkPolicy(registry: SchemeRegistry, policy: PasswordPolicy): void {
  const defaultScheme = registry.require(policy.defaultScheme);
  if (policy.importScheme !== undefined) requireScheme(registry, policy.importScheme, 'importScheme');
  if (policy.defaultIterations !== undefined) {
    if (!takesIterations(defaultScheme)) throw new SchemeError(`defaultIterations: {${defaultScheme.names[0]}} takes no iterations`);
    registry.validateParams(policy.defaultScheme, { iterations: policy.defaultIterations });
  }
  if (policy.defaultParams !== undefined) {
    try {
      registry.validateParams(policy.defaultScheme, policy.defaultParams);
    } catch (error) {
      throw new SchemeError(`defaultParams: ${errorMessage(error)}`);
    }
  }
  for (const name of policy.deprecatedSchemes) {
    if (requireScheme(registry, name, 'deprecatedSchemes') === defaultScheme) throw new SchemeError(`the default scheme {${defaultScheme.names[0]}} cannot also be deprecated`);
  }
}

/** What the policy re-encodes after a successful bind, resolved once. */
export interface RehashRule {
  readonly deprecated: ReadonlySet<PasswordScheme>;
  /** Values recording fewer iterations are re-encoded (undefined: no iteration upgrade). */
  readonly minIterations?: number;
  /** Values costing less than this in any of its measures are re-encoded (undefined: no cost upgrade). */
  readonly minCost?: StoredCost;
}

export function rehashRule(registry: SchemeRegistry, policy: PasswordPolicy): RehashRule {
  const deprecated = new Set(policy.deprecatedSchemes.map((name) => registry.require(name)));
  const scheme = registry.require(policy.defaultScheme);
  const written = policy.defaultIterations ?? scheme.params?.find((spec) => spec.name === 'iterations')?.default;
  const minCost = policy.upgradeCost ? registry.writtenCost(scheme, policyParams(registry, policy.defaultScheme, policy)) : undefined;
  return {
    deprecated,
    ...(policy.upgradeIterations && written !== undefined && { minIterations: written }),
    ...(minCost !== undefined && Object.keys(minCost).length > 0 && { minCost }),
  };
}

/** The measures a cost upgrade compares (lanes are not: fewer lanes is not cheaper). */
const COST_MEASURES = [['iterations', 'iterations'], ['memoryKiB', 'KiB of memory'], ['passes', 'passes'], ['bcryptCost', 'bcrypt cost']] as const;

function cheaper(cost: StoredCost | undefined, min: StoredCost): string | undefined {
  for (const [measure, words] of COST_MEASURES) {
    const [given, wanted] = [cost?.[measure], min[measure]];
    if (given !== undefined && wanted !== undefined && given < wanted) return `${given} ${words}, less than the ${wanted} written now`;
  }
  return undefined;
}

/** Why a stored value should be re-encoded with the default scheme, or undefined. */
export function rehashReason(registry: SchemeRegistry, rule: RehashRule, stored: string): string | undefined {
  const { name } = parseStoredValue(stored);
  const scheme = registry.find(name);
  if (scheme !== undefined && rule.deprecated.has(scheme)) return `deprecated scheme {${name}}`;
  if (rule.minIterations === undefined && rule.minCost === undefined) return undefined;
  const cost = registry.costOf(stored);
  const iterations = cost?.iterations;
  if (rule.minIterations !== undefined && iterations !== undefined && iterations < rule.minIterations) return `${iterations} iterations, fewer than ${rule.minIterations}`;
  return rule.minCost === undefined ? undefined : cheaper(cost, rule.minCost);
}
