/**
 * A SearchResultEntry read by a client (RFC 4511 4.5.2): its DN and attributes with their
 * values as text. leveldap's own clients (`leveldap top`) read cn=Monitor with it.
 */
import { BerInput } from './reader.js';

const SEQUENCE = 0x30;
const SET = 0x31;
const OCTET_STRING = 0x04;
const INTEGER = 0x02;
const SEARCH_RESULT_ENTRY = 0x64;

export interface ClientEntry {
  readonly dn: string;
  /** Values by attribute name as the server wrote it. */
  readonly attributes: ReadonlyMap<string, readonly string[]>;
}

/** The entry a SearchResultEntry message carries. */
export function decodeSearchEntry(frame: Buffer): ClientEntry {
  const input = new BerInput(frame);
  input.enter(SEQUENCE, 'LDAPMessage');
  input.integer(INTEGER, 'messageID');
  input.enter(SEARCH_RESULT_ENTRY, 'SearchResultEntry');
  const dn = input.string(OCTET_STRING, 'objectName');
  const attributes = new Map<string, string[]>();
  input.list(SEQUENCE, 'attributes', () => {
    const outer = input.enter(SEQUENCE, 'PartialAttribute');
    const name = input.string(OCTET_STRING, 'type');
    attributes.set(name, input.list(SET, 'vals', () => input.string(OCTET_STRING, 'value')));
    input.leave(outer, 'PartialAttribute');
  });
  return { dn, attributes };
}
