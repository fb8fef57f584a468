/**
 * The scheme registry: finds a scheme by its `{NAME}` prefix (case-insensitively), encodes
 * with parameters checked against the scheme's limits, and verifies without ever throwing:
 * a malformed or too costly stored value is a "no match" with a reason and a log line.
 */
import type { ParamSpec, PasswordScheme, SchemeParams } from '../../schemes/scheme.js';
import { builtinSchemes } from '../../schemes/index.js';
import { errorMessage } from '../errors.js';
import { SchemeError } from './errors.js';
import { SCHEME_PREFIX as PREFIX } from './scheme-name.js';
import { asScheme } from './validate.js';

/** Highest iteration count a stored value may ask for (OWASP 2023 asks 1,300,000 for PBKDF2-SHA1). */
export const DEFAULT_MAX_ITERATIONS = 2_000_000;

export interface Logger {
  warn(fields: object, message: string): void;
}

export interface RegistryOptions {
  /** Stored values asking for more iterations are refused unverified. */
  readonly maxIterations?: number;
  readonly logger?: Logger;
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
  readonly iterations?: number;
  /** Why it cannot be verified, if it cannot. */
  readonly problem?: string;
}

export class SchemeRegistry {
  readonly maxIterations: number;
  /** The plugin files loaded (resolved paths), in order: with maxIterations, how to build this registry again (registryAgain). */
  readonly pluginFiles: string[] = [];
  private readonly logger: Logger | undefined;
  private readonly byName = new Map<string, RegisteredScheme>();
  private readonly entries: RegisteredScheme[] = [];

  constructor(options: RegistryOptions = {}) {
    const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    if (!Number.isSafeInteger(maxIterations) || maxIterations < 1) {
      throw new SchemeError(`the iteration limit must be a positive whole number, not ${String(options.maxIterations)}`);
    }
    this.maxIterations = maxIterations;
    this.logger = options.logger;
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
    const stored = await scheme.encode(password, this.checkParams(scheme, params));
    const refusal = this.inspect(stored).problem;
    if (refusal) throw new SchemeError(`{${scheme.names[0]}} would write a value this server refuses to verify: ${refusal}`);
    return stored;
  }

  /** Checks parameters for a scheme without hashing anything (for start-up validation). */
  validateParams(name: string, params: SchemeParams): void {
    this.checkParams(this.require(name), params);
  }

  /** The highest value a parameter may take here: its own maximum, and the iteration cap. */
  maxOf(spec: ParamSpec): number {
    return spec.name === 'iterations' ? Math.min(spec.max, this.maxIterations) : spec.max;
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

  /** The iteration count a stored value records (PBKDF2 family, plugins with a cost), else undefined. Never throws. */
  iterationsOf(stored: string): number | undefined {
    return this.inspect(stored).iterations;
  }

  /**
   * A stored value read once: its scheme, value and recorded cost, and why it cannot be verified if
   * it cannot (unknown scheme, a cost above --max-iterations, a cost that does not parse). A bind
   * inspects a value once and verifies the inspection (verifyInspected). Never throws.
   */
  inspect(stored: string): StoredInspection {
    const { name, value } = parseStoredValue(stored);
    const entry = this.byName.get(name);
    if (!entry) return { name, value, problem: `unknown password scheme {${name}}` };
    let iterations: number | undefined;
    try {
      iterations = entry.scheme.cost?.(value, { name }).iterations;
    } catch (error) {
      return { name, value, scheme: entry.scheme, problem: errorMessage(error) };
    }
    if (iterations !== undefined && iterations > this.maxIterations) {
      return { name, value, scheme: entry.scheme, iterations, problem: `${iterations} iterations is above the limit of ${this.maxIterations} (--max-iterations)` };
    }
    return { name, value, scheme: entry.scheme, ...(iterations !== undefined && { iterations }) };
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
      const match = await scheme.verify(password, value, { name });
      return { status: match === true ? 'match' : 'mismatch', scheme: name };
    } catch (error) {
      return this.invalid(name, errorMessage(error));
    }
  }

  private invalid(scheme: string | undefined, reason: string): VerifyResult {
    this.logger?.warn({ scheme }, `stored password value refused: ${reason}`);
    return scheme === undefined ? { status: 'invalid', reason } : { status: 'invalid', scheme, reason };
  }

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
