/**
 * The dnKey of an entry's DN as it is stored, for a search that tests memberships: the same as
 * dnKey(parseDn(dn)), with the parent's key kept per parent text. The entries a search returns
 * share a few parents (every member of a group under ou=People), and parsing and normalizing
 * each whole DN was 13% of a group search's time. Only a plain first RDN (no escape, quote, hex
 * value, `+` or `;`) is split off; any other DN is parsed whole. A SchemaMemo: normalizing follows
 * the schema's matching rules.
 */
import { dnKey, keyBelow, parseDn, SchemaMemo, splitPlainFirstRdn } from '../../store/index.js';

/** Parents' keys, at most 1,024, of parents up to 512 characters. */
const parents = new SchemaMemo<string>(1024, 512);
const keyOfText = (text: string): string => dnKey(parseDn(text));

/** dnKey(parseDn(dn)). */
export function entryKeyOf(dn: string): string {
  const split = splitPlainFirstRdn(dn);
  if (split === undefined) return keyOfText(dn);
  const [rdn] = parseDn(split[0]);
  const parent = parents.get(split[1], keyOfText);
  return rdn === undefined || parent === '' ? keyOfText(dn) : keyBelow(parent, rdn);
}
