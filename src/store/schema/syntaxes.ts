/**
 * LDAP syntaxes (RFC 4517 section 3.3, and the few others servers publish): the OID, a name, and
 * for the common ones a check of a value's form, so that a write with a malformed Integer,
 * Boolean, DN, GeneralizedTime, IA5String, PrintableString, NumericString, TelephoneNumber, OID,
 * Country String or Directory String is refused (invalidAttributeSyntax, 21). Syntaxes without a
 * check take any value (Octet String, binary, certificates, ...). A literal table.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { isGeneralizedTime } from '../time.js';
import { parseDn } from '../dn.js';

export interface Syntax {
  readonly oid: string;
  readonly description: string;
  /** Whether a value has this syntax's form (absent: any value does). */
  readonly check?: (value: Buffer) => boolean;
  /** Values are binary: published with ";binary"-free names but never compared as text. */
  readonly binary?: boolean;
}

const LDAP = '1.3.6.1.4.1.1466.115.121.1.';

/** Values up to this length are looked at byte by byte in JavaScript first (cheaper than a call into Node's C++ for the short values most are). */
const SHORT = 256;

/** Whether every byte of a short value is ASCII (false for a long one: it takes the general path). */
function isShortAscii(value: Buffer): boolean {
  const length = value.length;
  if (length > SHORT) return false;
  for (let i = 0; i < length; i++) if (value[i]! >= 0x80) return false;
  return true;
}

/** The value as text, or undefined when it is not valid UTF-8 (or holds U+FFFD, what a decoding error leaves). */
const text = (value: Buffer): string | undefined => {
  if (isShortAscii(value)) return value.toString('latin1');
  const decoded = value.toString('utf8');
  return Buffer.byteLength(decoded) === value.byteLength && !decoded.includes('\uFFFD') ? decoded : undefined;
};

const matches = (pattern: RegExp) => (value: Buffer): boolean => pattern.test(text(value) ?? '\0');

const PRINTABLE = /^[A-Za-z0-9'()+,\-./:? =]+$/;
const DESCR_OR_OID = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-2](?:\.(?:0|[1-9][0-9]*))+)$/;

function isDn(value: Buffer): boolean {
  const decoded = text(value);
  if (decoded === undefined) return false;
  try {
    parseDn(decoded);
    return true;
  } catch {
    return false;
  }
}

/** RFC 4517 3.3.34 NameAndOptionalUID: a DN, then optionally #'0101'B. */
function isNameAndOptionalUid(value: Buffer): boolean {
  const decoded = text(value) ?? '';
  const uid = /#'[01]*'B$/.exec(decoded);
  return isDn(Buffer.from(uid ? decoded.slice(0, uid.index) : decoded));
}

const isIa5 = (value: Buffer): boolean => isAscii(value);

/** U+FFFD in UTF-8: `text` refuses a value holding it (it is what a decoding error would leave). */
const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

/** The same answer as `text(value) !== undefined`, without decoding: valid UTF-8 without U+FFFD. */
const isDirectoryString = (value: Buffer): boolean => value.byteLength > 0 && (isShortAscii(value) || (isUtf8(value) && value.indexOf(REPLACEMENT) === -1));

const SYNTAXES: readonly Syntax[] = [
  { oid: `${LDAP}1`, description: 'ACI Item', binary: true },
  { oid: `${LDAP}2`, description: 'Access Point' },
  { oid: `${LDAP}3`, description: 'Attribute Type Description' },
  { oid: `${LDAP}4`, description: 'Audio', binary: true },
  { oid: `${LDAP}5`, description: 'Binary', binary: true },
  { oid: `${LDAP}6`, description: 'Bit String', check: matches(/^'[01]*'B$/) },
  { oid: `${LDAP}7`, description: 'Boolean', check: matches(/^(TRUE|FALSE)$/) },
  { oid: `${LDAP}8`, description: 'Certificate', binary: true },
  { oid: `${LDAP}9`, description: 'Certificate List', binary: true },
  { oid: `${LDAP}10`, description: 'Certificate Pair', binary: true },
  { oid: `${LDAP}11`, description: 'Country String', check: matches(/^[A-Za-z0-9'()+,\-./:? =]{2}$/) },
  { oid: `${LDAP}12`, description: 'DN', check: isDn },
  { oid: `${LDAP}13`, description: 'Data Quality' },
  { oid: `${LDAP}14`, description: 'Delivery Method' },
  { oid: `${LDAP}15`, description: 'Directory String', check: isDirectoryString },
  { oid: `${LDAP}16`, description: 'DIT Content Rule Description' },
  { oid: `${LDAP}17`, description: 'DIT Structure Rule Description' },
  { oid: `${LDAP}19`, description: 'DSA Quality' },
  { oid: `${LDAP}20`, description: 'DSE Type' },
  { oid: `${LDAP}21`, description: 'Enhanced Guide' },
  { oid: `${LDAP}22`, description: 'Facsimile Telephone Number' },
  { oid: `${LDAP}23`, description: 'Fax', binary: true },
  { oid: `${LDAP}24`, description: 'Generalized Time', check: isGeneralizedTime },
  { oid: `${LDAP}25`, description: 'Guide' },
  { oid: `${LDAP}26`, description: 'IA5 String', check: isIa5 },
  { oid: `${LDAP}27`, description: 'INTEGER', check: matches(/^-?(?:0|[1-9][0-9]*)$/) },
  { oid: `${LDAP}28`, description: 'JPEG', binary: true },
  { oid: `${LDAP}29`, description: 'Master And Shadow Access Points' },
  { oid: `${LDAP}30`, description: 'Matching Rule Description' },
  { oid: `${LDAP}31`, description: 'Matching Rule Use Description' },
  { oid: `${LDAP}32`, description: 'Mail Preference' },
  { oid: `${LDAP}33`, description: 'MHS OR Address' },
  { oid: `${LDAP}34`, description: 'Name And Optional UID', check: isNameAndOptionalUid },
  { oid: `${LDAP}35`, description: 'Name Form Description' },
  { oid: `${LDAP}36`, description: 'Numeric String', check: matches(/^[0-9 ]+$/) },
  { oid: `${LDAP}37`, description: 'Object Class Description' },
  { oid: `${LDAP}38`, description: 'OID', check: matches(DESCR_OR_OID) },
  { oid: `${LDAP}39`, description: 'Other Mailbox' },
  { oid: `${LDAP}40`, description: 'Octet String' },
  { oid: `${LDAP}41`, description: 'Postal Address', check: isDirectoryString },
  { oid: `${LDAP}42`, description: 'Protocol Information' },
  { oid: `${LDAP}43`, description: 'Presentation Address' },
  { oid: `${LDAP}44`, description: 'Printable String', check: matches(PRINTABLE) },
  { oid: `${LDAP}45`, description: 'SubtreeSpecification' },
  { oid: `${LDAP}46`, description: 'Supplier Information' },
  { oid: `${LDAP}47`, description: 'Supplier Or Consumer' },
  { oid: `${LDAP}48`, description: 'Supplier And Consumer' },
  { oid: `${LDAP}49`, description: 'Supported Algorithm', binary: true },
  { oid: `${LDAP}50`, description: 'Telephone Number', check: matches(PRINTABLE) },
  { oid: `${LDAP}51`, description: 'Teletex Terminal Identifier' },
  { oid: `${LDAP}52`, description: 'Telex Number' },
  { oid: `${LDAP}53`, description: 'UTC Time', check: matches(/^[0-9]{10}(?:[0-9]{2})?(?:Z|[+-][0-9]{4})$/) },
  { oid: `${LDAP}54`, description: 'LDAP Syntax Description' },
  { oid: `${LDAP}55`, description: 'Modify Rights' },
  { oid: `${LDAP}56`, description: 'LDAP Schema Definition' },
  { oid: `${LDAP}57`, description: 'LDAP Schema Description' },
  { oid: `${LDAP}58`, description: 'Substring Assertion' },
  { oid: '1.3.6.1.1.1.0.0', description: 'RFC2307 NIS Netgroup Triple' },
  { oid: '1.3.6.1.1.1.0.1', description: 'RFC2307 Boot Parameter' },
  { oid: '1.3.6.1.1.16.1', description: 'UUID', check: matches(/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/) },
  { oid: '1.3.6.1.4.1.4203.1.1.2', description: 'RFC3112 Authentication Password' },
  { oid: '1.3.6.1.4.1.4203.666.11.2.1', description: 'CSN' },
  { oid: '1.3.6.1.4.1.4203.666.2.7', description: 'OpenLDAP authz' },
];

/** The built-in syntaxes by OID. */
export const BUILTIN_SYNTAXES: ReadonlyMap<string, Syntax> = new Map(SYNTAXES.map((syntax) => [syntax.oid, syntax]));

/** RFC 4517's Directory String: what a type without its own syntax is checked as. */
export const DIRECTORY_STRING = `${LDAP}15`;
