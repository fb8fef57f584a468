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
   * The cost parameters recorded in a stored value (e.g. { iterations: 60000 }), so the
   * registry can refuse values that would stall the server. Throws InvalidStoredValue.
   */
  cost?(value: string, context: VerifyContext): SchemeParams;
}

/** A stored value that is not in the format its scheme name promises. */
export class InvalidStoredValue extends Error {
  override name = 'InvalidStoredValue';
}
