/** A scheme name as it may stand in braces: `{PBKDF2-SHA256}`. */
export const SCHEME_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `{NAME}` at the start of a stored value. */
export const SCHEME_PREFIX = /^\{([A-Za-z0-9][A-Za-z0-9._-]{0,63})\}/;

/**
 * SchemeRegistry.classify's answer from the registry's scheme names alone (registry.names()),
 * for a thread that has no registry: plain, hashed in a known scheme, or in an unknown one.
 */
export function classifyByNames(names: readonly string[]): (value: string) => { kind: 'plain' | 'hashed' } | { kind: 'unknown'; name: string } {
  const known = new Set(names.map((name) => name.toUpperCase()));
  return (value) => {
    const prefix = SCHEME_PREFIX.exec(value);
    if (!prefix) return { kind: 'plain' };
    return known.has(prefix[1]!.toUpperCase()) ? { kind: 'hashed' } : { kind: 'unknown', name: prefix[1]! };
  };
}
