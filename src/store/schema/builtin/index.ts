/**
 * The built-in schema texts, in the order they load (a later one may use an earlier one's
 * names). `nis` is RFC 2307; a --schema of `rfc2307bis` loads the draft's variant in its place
 * (posixGroup AUXILIARY: the same OID, so one or the other).
 */
import { CORE_SCHEMA } from './core.js';
import { COSINE_SCHEMA } from './cosine.js';
import { INETORGPERSON_SCHEMA } from './inetorgperson.js';
import { NIS_SCHEMA } from './nis.js';
import { RFC2307BIS_SCHEMA } from './rfc2307bis.js';
import { PPOLICY_SCHEMA } from './ppolicy.js';
import { LEVELDAP_SCHEMA } from './leveldap.js';
import { MONITOR_SCHEMA } from './monitor.js';

export interface BuiltinSchemaFile {
  readonly name: string;
  readonly text: string;
}

/** Names a --schema argument may give instead of a file: the built-in variants. */
export const BUILTIN_VARIANTS: ReadonlySet<string> = new Set(['rfc2307bis']);

/** The built-in schemas; with `rfc2307bis`, its posixGroup instead of RFC 2307's. */
export function builtinSchemaFiles(rfc2307bis = false): readonly BuiltinSchemaFile[] {
  return [
    { name: 'core (RFC 4512, 4519, 4523)', text: CORE_SCHEMA },
    { name: 'cosine (RFC 4524)', text: COSINE_SCHEMA },
    { name: 'inetorgperson (RFC 2798)', text: INETORGPERSON_SCHEMA },
    rfc2307bis ? { name: 'rfc2307bis', text: RFC2307BIS_SCHEMA } : { name: 'nis (RFC 2307)', text: NIS_SCHEMA },
    { name: 'ppolicy', text: PPOLICY_SCHEMA },
    { name: 'leveldap', text: LEVELDAP_SCHEMA },
    { name: 'monitor (OpenLDAP back-monitor)', text: MONITOR_SCHEMA },
  ];
}
