/** Control OIDs the server knows, and the simple paged results control value (RFC 2696). */
import { elementSize, integerSize, writeHeader, writeInteger, writeOctets } from './tlv.js';
import { Tag } from './tags.js';
import { ProtocolError } from './errors.js';
import { asProtocolError, BerInput } from './reader.js';

/** Simple Paged Results Manipulation (RFC 2696). */
export const PAGED_RESULTS_OID = '1.2.840.113556.1.4.319';
/** ManageDsaIT (RFC 3296). */
export const MANAGE_DSA_IT_OID = '2.16.840.1.113730.3.4.2';

export interface PagedResults {
  readonly size: number;
  readonly cookie: Buffer;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const OCTET_STRING = 0x04;

/**
 * realSearchControlValue ::= SEQUENCE { size INTEGER (0..maxInt), cookie OCTET STRING }.
 * A missing cookie is read as an empty one: ldapjs's client (3.0.7) leaves it out on the
 * first page.
 */
export function decodePagedResults(value: Buffer): PagedResults {
  try {
    const input = new BerInput(value);
    const outer = input.enter(SEQUENCE, 'paged results control value');
    const size = input.count(INTEGER, 'paged results size');
    const cookie = input.peek() === undefined ? Buffer.alloc(0) : input.octets(OCTET_STRING, 'paged results cookie');
    input.leave(outer, 'paged results control value');
    input.finish('paged results control value');
    return { size, cookie };
  } catch (error) {
    throw asProtocolError(error);
  }
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
