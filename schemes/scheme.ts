/**
 * The password storage scheme interface. Every file in schemes/ implements it; plugins
 * loaded with --scheme-plugin export plain objects of the same shape.
 */

/** Numeric parameters of one encode call, e.g. { iterations: 10000 }. */
export type SchemeParams = Readonly<Record<string, number>>;

/** A parameter a scheme takes when it writes a value. */
export interface ParamSpec {
  readonly name: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  readonly description: string;
  /** What a value written with this parameter at `value` costs, so the limits are checked before hashing. */
  readonly cost?: (value: number) => StoredCost;
}

/**
 * What verifying a stored value costs, as the value records it. The registry refuses a value
 * above its limits before any hashing, and admits memory-hard ones against its memory budget.
 */
export interface StoredCost {
  /** PBKDF2 iterations, SHA-crypt rounds (limit: --max-iterations). */
  readonly iterations?: number;
  /** Memory one verification takes, in KiB: Argon2's m, yescrypt's 128·N·r bytes (--max-hash-memory). */
  readonly memoryKiB?: number;
  /** Passes over that memory: Argon2's t, yescrypt's t (--max-hash-passes). */
  readonly passes?: number;
  /** Threads one verification runs on: Argon2's p. */
  readonly lanes?: number;
  /** bcrypt's cost, log2 of its rounds (--max-bcrypt-cost). */
  readonly bcryptCost?: number;
}

/** What a scheme is told when it verifies. */
export interface VerifyContext {
  /** The scheme name as it appeared in braces, upper-cased (one scheme may answer to several). */
  readonly name: string;
}

export interface PasswordScheme {
  /** Names accepted in braces, matched case-insensitively; the first is the one written. */
  readonly names: readonly string[];
  /** One line for `leveldap schemes`. */
  readonly description: string;
  /** Parameters `encode` understands, with defaults and limits. */
  readonly params?: readonly ParamSpec[];
  /**
   * Why this scheme cannot hash on this machine (its native addon did not build), if it cannot:
   * it stays listed, and a stored value in it fails to verify with this reason logged.
   */
  readonly unavailable?: string;
  /**
   * Hash a password. Returns the whole stored value, `{NAME}` prefix included.
   * Absent for schemes that can only be verified (migration formats).
   */
  encode?(password: Uint8Array, params: SchemeParams): Promise<string>;
  /**
   * Compare a password with a stored value (the text after the `{NAME}` prefix).
   * Throws InvalidStoredValue when the value is not in the scheme's format.
   */
  verify(password: Uint8Array, value: string, context: VerifyContext): Promise<boolean>;
  /**
   * The cost recorded in a stored value (e.g. { iterations: 60000 }), so the registry can
   * refuse values that would stall the server. Throws InvalidStoredValue.
   */
  cost?(value: string, context: VerifyContext): StoredCost;
}

/** A stored value that is not in the format its scheme name promises. */
export class InvalidStoredValue extends Error {
  override name = 'InvalidStoredValue';
}
