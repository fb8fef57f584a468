/** Which scheme new passwords are written with. */
import type { PasswordScheme } from '../../schemes/scheme.js';
import { SchemeError } from './errors.js';
import type { SchemeRegistry } from './registry.js';

/** PBKDF2-SHA256 at 10,000 iterations: what OpenLDAP pw-pbkdf2 writes, readable by OpenLDAP and 389 DS. */
export const DEFAULT_SCHEME = 'PBKDF2-SHA256';

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
