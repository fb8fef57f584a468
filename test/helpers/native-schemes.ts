/**
 * Schemes that hash through an addon of native/ (Argon2, crypt(3)): their tests skip with the
 * reason when the addon did not build, unless LEVELDAP_REQUIRE_NATIVE=1 (set by .ci/run) makes
 * a missing addon a failure.
 */
import { createRegistry } from '../../src/password/index.js';

const registry = createRegistry();

/** Why the named scheme's tests are skipped here, or false when they run. */
export function skipUnavailable(name: string): string | false {
  const { unavailable } = registry.require(name);
  return unavailable !== undefined && process.env.LEVELDAP_REQUIRE_NATIVE !== '1' ? unavailable : false;
}

/** The names of the schemes that cannot hash here (none when every addon built). */
export const UNAVAILABLE = new Set(registry.list().filter(({ scheme }) => scheme.unavailable !== undefined).flatMap(({ scheme }) => scheme.names));
