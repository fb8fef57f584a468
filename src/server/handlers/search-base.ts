/**
 * A search's base DN, parsed and normalized once per text: the same few bases (the suffix,
 * ou=People, ...) come in search after search, and parsing and normalizing one costs more than the
 * rest of a one-entry search's set-up. A SchemaMemo: normalizing follows the schema's matching rules.
 */
import { dnKey, normalizedDnOf, parseDn, SchemaMemo, type Dn } from '../../store/index.js';

export interface SearchBase {
  readonly dn: Dn;
  /** normalizeDn of it (read off its key, as BindNames does). */
  readonly normalized: string;
  /** Its dnKey (the store's). */
  readonly key: string;
}

/** At most 1,024 bases, of up to 512 characters. */
const bases = new SchemaMemo<SearchBase>(1024, 512);

function parsed(text: string): SearchBase {
  const dn = parseDn(text);
  const key = dnKey(dn);
  return { dn, normalized: normalizedDnOf(key), key };
}

/** The base, parsed (invalidDnSyntax as parseDn throws it) and normalized. */
export function searchBase(text: string): SearchBase {
  return bases.get(text, parsed);
}
