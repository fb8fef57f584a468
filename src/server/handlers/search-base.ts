/**
 * A search's base DN, parsed and normalized once per text: the same few bases (the suffix,
 * ou=People, ...) come in search after search, and parsing and normalizing one costs more than the
 * rest of a one-entry search's set-up. A memo of pure functions, dropped when another schema is
 * installed (normalizing follows the schema's matching rules).
 */
import { normalizeDn, onSchemaChange, parseDn, type Dn } from '../../store/index.js';

export interface SearchBase {
  readonly dn: Dn;
  /** normalizeDn of it. */
  readonly normalized: string;
}

const kept = new Map<string, SearchBase>();
/** Bases kept at most (past it, the memo starts again). */
const KEPT = 1024;
/** Longer bases are parsed each time. */
const KEPT_LENGTH = 512;
onSchemaChange(() => kept.clear());

/** The base, parsed (invalidDnSyntax as parseDn throws it) and normalized. */
export function searchBase(text: string): SearchBase {
  const known = kept.get(text);
  if (known !== undefined) return known;
  const dn = parseDn(text);
  const base = { dn, normalized: normalizeDn(dn) };
  if (text.length <= KEPT_LENGTH) {
    if (kept.size >= KEPT) kept.clear();
    kept.set(text, base);
  }
  return base;
}
