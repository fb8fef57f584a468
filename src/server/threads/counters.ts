/**
 * Counts that every serving thread adds to (`serve --threads`), in shared memory: one Int32
 * each, changed with Atomics. With one thread they are the same, unshared in effect.
 */
export const COUNTER = {
  /** Connections open on the LDAP port, and on the LDAPS port (for --max-connections). */
  ldapConnections: 0,
  ldapsConnections: 1,
  /** Passwords re-encoded after a bind since start. */
  reencoded: 2,
} as const;

export type Counters = Int32Array;

export function newCounters(): Counters {
  return new Int32Array(new SharedArrayBuffer(Object.keys(COUNTER).length * Int32Array.BYTES_PER_ELEMENT));
}
