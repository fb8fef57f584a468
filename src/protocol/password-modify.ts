/**
 * The Password Modify extended operation's values (RFC 3062):
 *
 *   PasswdModifyRequestValue ::= SEQUENCE {
 *     userIdentity [0] OCTET STRING OPTIONAL, oldPasswd [1] OCTET STRING OPTIONAL, newPasswd [2] OCTET STRING OPTIONAL }
 *   PasswdModifyResponseValue ::= SEQUENCE { genPasswd [0] OCTET STRING OPTIONAL }
 */
import { asProtocolError, BerInput } from './reader.js';
import { elementSize, writeHeader, writeOctets } from './tlv.js';
import { Tag } from './tags.js';

export const PASSWORD_MODIFY_OID = '1.3.6.1.4.1.4203.1.11.1';

const USER_IDENTITY = 0x80;
const OLD_PASSWORD = 0x81;
const NEW_PASSWORD = 0x82;
const GENERATED_PASSWORD = 0x80;

export interface PasswordModifyRequest {
  readonly userIdentity?: string;
  readonly oldPassword?: Buffer;
  readonly newPassword?: Buffer;
}

function optional(input: BerInput, tag: number, what: string): Buffer | undefined {
  return input.peek() === tag ? input.octets(tag, what) : undefined;
}

/** Decodes the request value; an absent value is a request with no fields. Throws ProtocolError. */
export function decodePasswordModify(value: Buffer | undefined): PasswordModifyRequest {
  if (value === undefined) return {};
  try {
    const input = new BerInput(value);
    const outer = input.enter(Tag.Sequence, 'PasswdModifyRequestValue');
    const identity = input.peek() === USER_IDENTITY ? input.string(USER_IDENTITY, 'userIdentity') : undefined;
    const oldPassword = optional(input, OLD_PASSWORD, 'oldPasswd');
    const newPassword = optional(input, NEW_PASSWORD, 'newPasswd');
    input.leave(outer, 'PasswdModifyRequestValue');
    input.finish('PasswdModifyRequestValue');
    return {
      ...(identity !== undefined && { userIdentity: identity }),
      ...(oldPassword !== undefined && { oldPassword }),
      ...(newPassword !== undefined && { newPassword }),
    };
  } catch (error) {
    throw asProtocolError(error);
  }
}

/** The response value carrying a generated password. */
export function encodePasswordModifyResponse(generated: Buffer): Buffer {
  const length = elementSize(generated.length);
  const buffer = Buffer.allocUnsafe(elementSize(length));
  writeOctets(buffer, writeHeader(buffer, 0, Tag.Sequence, length), GENERATED_PASSWORD, generated);
  return buffer;
}
