/** Which stored userPassword values a password is verified against: the bind, the old-password check, the decoys. */

/**
 * A bind verifies at most this many of an entry's userPassword values, the first ones as stored
 * (so a wrong password costs a bounded number of verifications whatever the admin stored; users
 * hold one value). The old-password check and the "not the current password" rule use the same
 * values: those that can bind.
 */
export const MAX_VERIFIED_VALUES = 4;

/** The stored values a password is verified against. */
export function verifiedValues<T>(stored: readonly T[]): T[] {
  return stored.slice(0, MAX_VERIFIED_VALUES);
}
