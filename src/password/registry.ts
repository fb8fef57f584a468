/**
 * The scheme registry: finds a scheme by its `{NAME}` prefix (case-insensitively), encodes
 * with parameters checked against the scheme's limits, and verifies without ever throwing:
 * a malformed or too costly stored value is a "no match" with a reason and a log line.
 */
import type { ParamSpec, PasswordScheme, SchemeParams, StoredCost } from '../../schemes/scheme.js';
import { builtinSchemes } from '../../schemes/index.js';
import { errorMessage } from '../errors.js';
import { SchemeError } from './errors.js';
import { SCHEME_PREFIX as PREFIX } from './scheme-name.js';
import { asScheme } from './validate.js';
import { HashMemoryBudget } from './memory-budget.js';

/** Highest iteration count a stored value may ask for (OWASP 2023 asks 1,300,000 for PBKDF2-SHA1). */
export const DEFAULT_MAX_ITERATIONS = 2_000_000;

/**
 * The most a stored value may make one verification cost; above them it is refused unverified.
 * Defaults: --max-iterations 2,000,000; --max-hash-memory 256 MiB (RFC 9106's second choice is
 * 64, OWASP's 19); --max-hash-passes 16 (RFC 9106 and OWASP ask 2 or 3); --max-bcrypt-cost 14
 * (about a second per verification here; OWASP asks 10 or more). Argon2 lanes: at most 16.
 */
export interface HashLimits {
  readonly maxIterations: number;
  readonly maxHashMemoryMiB: number;
  readonly maxHashPasses: number;
  readonly maxBcryptCost: number;
}

export const DEFAULT_HASH_LIMITS: HashLimits = { maxIterations: DEFAULT_MAX_ITERATIONS, maxHashMemoryMiB: 256, maxHashPasses: 16, maxBcryptCost: 14 };

/** Argon2 runs a thread per lane: more than this many per verification is refused. */
export const MAX_LANES = 16;

/** Each limit: the cost it bounds, the most its flag takes, and the words of a refusal. */
const LIMITS: readonly { key: keyof HashLimits; cost: keyof StoredCost; most: number; refusal: (given: number, limit: number) => string }[] = [
  { key: 'maxIterations', cost: 'iterations', most: 1_000_000_000, refusal: (given, limit) => `${given} iterations is above the limit of ${limit} (--max-iterations)` },
  { key: 'maxHashMemoryMiB', cost: 'memoryKiB', most: 4096, refusal: (given, limit) => `${given / 1024} MiB of memory is above the limit of ${limit} MiB (--max-hash-memory)` },
  { key: 'maxHashPasses', cost: 'passes', most: 1000, refusal: (given, limit) => `${given} passes is above the limit of ${limit} (--max-hash-passes)` },
  { key: 'maxBcryptCost', cost: 'bcryptCost', most: 31, refusal: (given, limit) => `bcrypt cost ${given} is above the limit of ${limit} (--max-bcrypt-cost)` },
];

/** A limit as a stored cost compares with it (memory in KiB). */
const limitOf = (limits: HashLimits, key: keyof HashLimits): number => (key === 'maxHashMemoryMiB' ? limits[key] * 1024 : limits[key]);

export interface Logger {
  warn(fields: object, message: string): void;
}

export interface RegistryOptions extends Partial<HashLimits> {
  readonly logger?: Logger;
  /** Where costly verifications wait for memory (shared by every serving thread); an auto budget of its own by default. */
  readonly memoryBudget?: HashMemoryBudget;
}

function checkedLimits(options: Partial<HashLimits>): HashLimits {
  const limits = { ...DEFAULT_HASH_LIMITS };
  for (const { key, most } of LIMITS) {
    const given = options[key] ?? limits[key];
    if (!Number.isSafeInteger(given) || given < 1 || given > most) {
      throw new SchemeError(`${key} must be a whole number from 1 to ${most}, not ${String(options[key])}`);
    }
    limits[key] = given;
  }
  return limits;
}

/** Why a stored cost is above the limits, or undefined. */
function overLimit(cost: StoredCost, limits: HashLimits): string | undefined {
  for (const { key, cost: field, refusal } of LIMITS) {
    const given = cost[field];
    if (given !== undefined && given > limitOf(limits, key)) return refusal(given, limits[key]);
  }
  return cost.lanes !== undefined && cost.lanes > MAX_LANES ? `${cost.lanes} lanes is above the limit of ${MAX_LANES}` : undefined;
}

export interface RegisteredScheme {
  readonly scheme: PasswordScheme;
  /** "built-in" or the plugin file it came from. */
  readonly origin: string;
}

export type VerifyResult =
  | { readonly status: 'match' | 'mismatch'; readonly scheme: string }
  | { readonly status: 'invalid'; readonly scheme?: string; readonly reason: string };

/** A userPassword value as written: a plain password, a value in a registered scheme, or in an unknown one. */
export type PasswordValue =
  | { readonly kind: 'plain' }
  | { readonly kind: 'hashed'; readonly scheme: PasswordScheme }
  | { readonly kind: 'unknown'; readonly name: string };

export interface StoredValue {
  readonly name: string;
  readonly value: string;
}

/** Splits `{NAME}rest`; a value without a prefix is cleartext, as OpenLDAP reads it. */
export function parseStoredValue(stored: string): StoredValue {
  const match = PREFIX.exec(stored);
  if (!match) return { name: 'CLEARTEXT', value: stored };
  return { name: match[1]!.toUpperCase(), value: stored.slice(match[0].length) };
}

/** A stored value as SchemeRegistry.inspect reads it. */
export interface StoredInspection {
  readonly name: string;
  readonly value: string;
  readonly scheme?: PasswordScheme;
  /** The cost the value records, for a scheme that records one (a costly scheme). */
  readonly cost?: StoredCost;
  /** Why it cannot be verified, if it cannot. */
  readonly problem?: string;
}

export class SchemeRegistry {
  readonly limits: HashLimits;
  readonly memoryBudget: HashMemoryBudget;
  /** The plugin files loaded (resolved paths), in order: with the limits, how to build this registry again (registryRecipe). */
  readonly pluginFiles: string[] = [];
  private readonly logger: Logger | undefined;
  private readonly byName = new Map<string, RegisteredScheme>();
  private readonly entries: RegisteredScheme[] = [];

  constructor(options: RegistryOptions = {}) {
    this.limits = checkedLimits(options);
    this.memoryBudget = options.memoryBudget ?? HashMemoryBudget.allocate();
    this.logger = options.logger;
  }

  get maxIterations(): number {
    return this.limits.maxIterations;
  }

  /** Adds a scheme; refuses a non-scheme or a name already taken, saying by whom. */
  register(candidate: unknown, origin = 'built-in'): PasswordScheme {
    const scheme = asScheme(candidate, origin);
    const keys = scheme.names.map((name) => name.toUpperCase());
    for (const key of keys) {
      const taken = this.byName.get(key);
      if (taken) throw new SchemeError(`${origin}: scheme {${key}} is already registered (${taken.origin})`);
    }
    if (new Set(keys).size !== keys.length) throw new SchemeError(`${origin}: a scheme lists the same name twice`);
    const entry = { scheme, origin };
    keys.forEach((key) => this.byName.set(key, entry));
    this.entries.push(entry);
    return scheme;
  }

  find(name: string): PasswordScheme | undefined {
    return this.byName.get(name.replace(/^\{|\}$/g, '').toUpperCase())?.scheme;
  }

  /** The scheme by name, or a SchemeError listing what exists. */
  require(name: string): PasswordScheme {
    const scheme = this.find(name);
    if (!scheme) throw new SchemeError(`unknown password scheme "${name}"; known: ${this.names().join(', ')}`);
    return scheme;
  }

  list(): readonly RegisteredScheme[] {
    return this.entries;
  }

  names(): string[] {
    return this.entries.flatMap((entry) => entry.scheme.names);
  }

  /** Hash a password with the named scheme; parameters default and are range-checked. */
  async encode(name: string, password: Uint8Array, params: SchemeParams = {}): Promise<string> {
    const scheme = this.require(name);
    if (!scheme.encode) throw new SchemeError(`scheme {${scheme.names[0]}} can only verify, not write, passwords`);
    if (scheme.unavailable !== undefined) throw new SchemeError(`scheme {${scheme.names[0]}} is unavailable here: ${scheme.unavailable}`);
    const checked = this.checkParams(scheme, params);
    const stored = await this.memoryBudget.run(this.memoryOf(scheme, checked), () => scheme.encode!(password, checked));
    const refusal = this.inspect(stored).problem;
    if (refusal) throw new SchemeError(`{${scheme.names[0]}} would write a value this server refuses to verify: ${refusal}`);
    return stored;
  }

  /** Checks parameters for a scheme without hashing anything (for start-up validation). */
  validateParams(name: string, params: SchemeParams): void {
    this.checkParams(this.require(name), params);
  }

  /** The highest value a parameter may take here: its own maximum, and the limits on what it costs (costs grow with the value). */
  maxOf(spec: ParamSpec): number {
    const { cost } = spec;
    if (cost === undefined || overLimit(cost(spec.max), this.limits) === undefined) return spec.max;
    let [low, high] = [spec.min, spec.max]; // low is within the limits (or the minimum), high is not
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (overLimit(cost(middle), this.limits) === undefined) low = middle;
      else high = middle;
    }
    return low;
  }

  /** What a userPassword value is: plain (no `{NAME}` prefix), hashed in a registered scheme, or in an unknown one. */
  classify(value: string): PasswordValue {
    const prefix = PREFIX.exec(value);
    if (!prefix) return { kind: 'plain' };
    const scheme = this.find(prefix[1]!);
    return scheme ? { kind: 'hashed', scheme } : { kind: 'unknown', name: prefix[1]! };
  }

  /** Why this server could not verify a stored value (unknown scheme, too many iterations), or undefined. */
  unverifiable(stored: string): string | undefined {
    return this.inspect(stored).problem;
  }

  /** The cost a stored value records (PBKDF2, crypt, Argon2, plugins with a cost), else undefined. Never throws. */
  costOf(stored: string): StoredCost | undefined {
    return this.inspect(stored).cost;
  }

  /**
   * A stored value read once: its scheme, value and recorded cost, and why it cannot be verified if
   * it cannot (unknown or unavailable scheme, a cost above the limits, a cost that does not parse).
   * A bind inspects a value once and verifies the inspection (verifyInspected). Never throws.
   */
  inspect(stored: string): StoredInspection {
    const { name, value } = parseStoredValue(stored);
    const entry = this.byName.get(name);
    if (!entry) return { name, value, problem: `unknown password scheme {${name}}` };
    const { scheme } = entry;
    if (scheme.unavailable !== undefined) return { name, value, scheme, problem: `{${name}} is unavailable here: ${scheme.unavailable}` };
    let cost: StoredCost | undefined;
    try {
      cost = scheme.cost?.(value, { name });
    } catch (error) {
      return { name, value, scheme, problem: errorMessage(error) };
    }
    if (cost === undefined) return { name, value, scheme };
    const problem = overLimit(cost, this.limits);
    return problem === undefined ? { name, value, scheme, cost } : { name, value, scheme, cost, problem };
  }

  /** Compare a password with a stored value. Never throws. */
  verify(password: Uint8Array, stored: string): Promise<VerifyResult> {
    return this.verifyInspected(password, this.inspect(stored));
  }

  /** Compare a password with a stored value inspected before. Never throws. */
  async verifyInspected(password: Uint8Array, inspected: StoredInspection): Promise<VerifyResult> {
    const { name, value, scheme } = inspected;
    if (password.byteLength === 0) return { status: 'mismatch', scheme: name };
    if (!scheme) return this.invalid(undefined, inspected.problem ?? `unknown password scheme {${name}}`);
    if (inspected.problem !== undefined) return this.invalid(name, inspected.problem);
    try {
      const match = await this.memoryBudget.run(inspected.cost?.memoryKiB ?? 0, () => scheme.verify(password, value, { name }));
      return { status: match === true ? 'match' : 'mismatch', scheme: name };
    } catch (error) {
      return this.invalid(name, errorMessage(error));
    }
  }

  private invalid(scheme: string | undefined, reason: string): VerifyResult {
    this.logger?.warn({ scheme }, `stored password value refused: ${reason}`);
    return scheme === undefined ? { status: 'invalid', reason } : { status: 'invalid', scheme, reason };
  }

  /** What a value the scheme writes with these parameters (defaulted) costs, from its parameters' cost(). */
  writtenCost(scheme: PasswordScheme, params: SchemeParams): StoredCost {
    return Object.assign({}, ...(scheme.params ?? []).map((spec) => spec.cost?.(params[spec.name] ?? spec.default) ?? {})) as StoredCost;
  }

  /** KiB of memory a value written with these parameters takes to hash (0 for schemes that say nothing). */
  private memoryOf(scheme: PasswordScheme, params: SchemeParams): number {
    return this.writtenCost(scheme, params).memoryKiB ?? 0;
  }

  /** The parameters, defaulted and in range, and within the limits on what the value they write would cost. */
  private checkParams(scheme: PasswordScheme, params: SchemeParams): SchemeParams {
    const specs = scheme.params ?? [];
    const result: Record<string, number> = {};
    for (const given of Object.keys(params)) {
      if (!specs.some((spec) => spec.name === given)) {
        throw new SchemeError(`scheme {${scheme.names[0]}} takes no parameter "${given}"`);
      }
    }
    for (const spec of specs) {
      const value = params[spec.name] ?? spec.default;
      const max = this.maxOf(spec);
      if (!Number.isInteger(value) || value < spec.min || value > max) {
        throw new SchemeError(`${spec.name} for {${scheme.names[0]}} must be an integer from ${spec.min} to ${max}`);
      }
      result[spec.name] = value;
    }
    return result;
  }
}

/** A registry holding the built-in schemes. */
export function createRegistry(options: RegistryOptions = {}): SchemeRegistry {
  const registry = new SchemeRegistry(options);
  builtinSchemes.forEach((scheme) => registry.register(scheme));
  return registry;
}
