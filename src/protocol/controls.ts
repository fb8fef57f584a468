/**
 * Control OIDs the server knows, and their values: simple paged results (RFC 2696), the
 * assertion control (RFC 4528), the pre-read and post-read request controls (RFC 4527; their
 * response value is a SearchResultEntry: encodeEntryValue in encode.ts), and the password policy
 * control (draft-behera-ldap-password-policy). A malformed value is a ProtocolError.
 */
import type { Filter } from './filter.js';
import { elementSize, integerSize, writeHeader, writeInteger, writeOctets } from './tlv.js';
import { Tag } from './tags.js';
import { ProtocolError } from './errors.js';
import { decodeFilter } from './decode-filter.js';
import { asProtocolError, BerInput } from './reader.js';

/** Simple Paged Results Manipulation (RFC 2696). */
export const PAGED_RESULTS_OID = '1.2.840.113556.1.4.319';
/** ManageDsaIT (RFC 3296). */
export const MANAGE_DSA_IT_OID = '2.16.840.1.113730.3.4.2';
/** The assertion control (RFC 4528): the operation proceeds only if its target entry matches a filter. */
export const ASSERTION_OID = '1.3.6.1.1.12';
/** The pre-read control (RFC 4527): the entry as it was before the write. */
export const PRE_READ_OID = '1.3.6.1.1.13.1';
/** The post-read control (RFC 4527): the entry as the write left it. */
export const POST_READ_OID = '1.3.6.1.1.13.2';
/** The password policy request and response controls (draft-behera-ldap-password-policy, one OID for both). */
export const PASSWORD_POLICY_OID = '1.3.6.1.4.1.42.2.27.8.5.1';

export interface PagedResults {
  readonly size: number;
  readonly cookie: Buffer;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const OCTET_STRING = 0x04;

/** Decodes a control value with `read`, which must consume it whole; every error becomes a ProtocolError. */
function decodeValue<T>(value: Buffer | undefined, what: string, read: (input: BerInput) => T): T {
  if (value === undefined) throw new ProtocolError(`${what} is absent`);
  try {
    const input = new BerInput(value);
    const result = read(input);
    input.finish(what);
    return result;
  } catch (error) {
    throw asProtocolError(error);
  }
}

/**
 * realSearchControlValue ::= SEQUENCE { size INTEGER (0..maxInt), cookie OCTET STRING }.
 * A missing cookie is read as an empty one: ldapjs's client (3.0.7) leaves it out on the
 * first page.
 */
export function decodePagedResults(value: Buffer): PagedResults {
  return decodeValue(value, 'paged results control value', (input) => {
    const outer = input.enter(SEQUENCE, 'paged results control value');
    const size = input.count(INTEGER, 'paged results size');
    const cookie = input.peek() === undefined ? Buffer.alloc(0) : input.octets(OCTET_STRING, 'paged results cookie');
    input.leave(outer, 'paged results control value');
    return { size, cookie };
  });
}

export function encodePagedResults(size: number, cookie: Buffer): Buffer {
  if (!Number.isInteger(size) || size < 0 || size > 0x7fffffff) throw new ProtocolError(`paged results size out of range: ${size}`);
  const contentLength = elementSize(integerSize(size)) + elementSize(cookie.length);
  const buffer = Buffer.allocUnsafe(elementSize(contentLength));
  let pos = writeHeader(buffer, 0, SEQUENCE, contentLength);
  pos = writeInteger(buffer, pos, Tag.Integer, size);
  writeOctets(buffer, pos, OCTET_STRING, cookie);
  return buffer;
}

/** The assertion control's value: one Filter (RFC 4511 4.5.1), with the same caps as a search filter. */
export function decodeAssertion(value: Buffer | undefined): Filter {
  return decodeValue(value, 'assertion control value', decodeFilter);
}

/** The pre-read and post-read controls' value: AttributeSelection ::= SEQUENCE OF selector LDAPString (as a search's attributes). */
export function decodeAttributeSelection(value: Buffer | undefined, what: string): string[] {
  return decodeValue(value, `${what} control value`, (input) => input.list(SEQUENCE, `${what} attribute selection`, () => input.string(OCTET_STRING, `${what} attribute`)));
}

/** The password policy request control carries no value. */
export function checkPasswordPolicyRequest(value: Buffer | undefined): void {
  if (value !== undefined) throw new ProtocolError('passwordPolicyRequest control value not absent');
}

/** The password policy response's error codes (the draft's ENUMERATED). */
export const PasswordPolicyError = {
  passwordExpired: 0,
  accountLocked: 1,
  changeAfterReset: 2,
  passwordModNotAllowed: 3,
  mustSupplyOldPassword: 4,
  insufficientPasswordQuality: 5,
  passwordTooShort: 6,
  passwordTooYoung: 7,
  passwordInHistory: 8,
} as const;
export type PasswordPolicyErrorName = keyof typeof PasswordPolicyError;

export interface PasswordPolicyResponse {
  readonly warning?: { readonly timeBeforeExpiration: number } | { readonly graceAuthNsRemaining: number };
  readonly error?: PasswordPolicyErrorName;
}

const PolicyTag = {
  Warning: 0xa0,
  TimeBeforeExpiration: 0x80,
  GraceAuthNsRemaining: 0x81,
  Error: 0x81,
} as const;

/**
 * PasswordPolicyResponseValue ::= SEQUENCE {
 *   warning [0] CHOICE { timeBeforeExpiration [0] INTEGER, graceAuthNsRemaining [1] INTEGER } OPTIONAL,
 *   error   [1] ENUMERATED OPTIONAL }
 * (the draft's module has implicit tags; the CHOICE keeps its own tag inside [0]). An empty
 * response is an empty SEQUENCE.
 */
export function encodePasswordPolicyResponse(response: PasswordPolicyResponse): Buffer {
  const warning = response.warning === undefined ? undefined
    : 'timeBeforeExpiration' in response.warning ? { tag: PolicyTag.TimeBeforeExpiration, value: response.warning.timeBeforeExpiration }
      : { tag: PolicyTag.GraceAuthNsRemaining, value: response.warning.graceAuthNsRemaining };
  const error = response.error === undefined ? undefined : PasswordPolicyError[response.error];
  const warningLength = warning === undefined ? 0 : elementSize(integerSize(warning.value));
  let length = warning === undefined ? 0 : elementSize(warningLength);
  if (error !== undefined) length += elementSize(integerSize(error));
  const buffer = Buffer.allocUnsafe(elementSize(length));
  let pos = writeHeader(buffer, 0, SEQUENCE, length);
  if (warning !== undefined) {
    pos = writeHeader(buffer, pos, PolicyTag.Warning, warningLength);
    pos = writeInteger(buffer, pos, warning.tag, warning.value);
  }
  if (error !== undefined) writeInteger(buffer, pos, PolicyTag.Error, error);
  return buffer;
}
