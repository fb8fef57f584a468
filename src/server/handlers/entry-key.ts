/**
 * The dnKey of an entry's DN as it is stored, for a search that tests memberships: the same as
 * dnKey(parseDn(dn)), with the parent's key kept per parent text. The entries a search returns
 * share a few parents (every member of a group under ou=People), and parsing and normalizing
 * each whole DN was 13% of a group search's time. Only a plain first RDN (no escape, quote, hex
 * value, `+` or `;`) is split off; any other DN is parsed whole. A memo of pure functions,
 * dropped when another schema is installed (normalizing follows the schema's matching rules).
 */
import { dnKey, keyBelow, onSchemaChange, parseDn } from '../../store/index.js';

const parents = new Map<string, string>();
/** Parents kept at most (past it, the memo starts again). */
const KEPT = 1024;
/** Longer parents are parsed each time. */
const KEPT_LENGTH = 512;
const NEEDS_FULL_PARSER = /[\\"#+;]/;
onSchemaChange(() => parents.clear());

function parentKey(text: string): string {
  const known = parents.get(text);
  if (known !== undefined) return known;
  const key = dnKey(parseDn(text));
  if (text.length <= KEPT_LENGTH) {
    if (parents.size >= KEPT) parents.clear();
    parents.set(text, key);
  }
  return key;
}

/** dnKey(parseDn(dn)). */
export function entryKeyOf(dn: string): string {
  const comma = dn.indexOf(',');
  if (comma === -1) return dnKey(parseDn(dn));
  const first = dn.slice(0, comma);
  if (NEEDS_FULL_PARSER.test(first)) return dnKey(parseDn(dn));
  const [rdn] = parseDn(first);
  const parent = parentKey(dn.slice(comma + 1));
  return rdn === undefined || parent === '' ? dnKey(parseDn(dn)) : keyBelow(parent, rdn);
}
