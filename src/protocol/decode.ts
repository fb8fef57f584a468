/**
 * LDAPMessage requests (RFC 4511 section 4) from BER frames. Strings (DNs included, unparsed)
 * are UTF-8; values stay Buffers, as views into the frame. Anything malformed throws
 * ProtocolError, with the message ID when it was readable.
 */
import type { BindAuthentication, Change, Control, Request, Scope } from './types.js';
import { decodeFilterKept, MAX_FILTER_ELEMENTS } from './decode-filter.js';
import { ProtocolError } from './errors.js';
import { asProtocolError, BerInput, hex } from './reader.js';
import { elementEnd, found, integerAt, utf8At } from './tlv.js';
import { Tag } from './tags.js';


/** The protocolOp tags of requests. */
export const RequestOp = {
  bind: 0x60,
  unbind: 0x42,
  search: 0x63,
  modify: 0x66,
  add: 0x68,
  delete: 0x4a,
  modifyDn: 0x6c,
  compare: 0x6e,
  abandon: 0x50,
  extended: 0x77,
} as const;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A request without its envelope (message ID and controls). */
type Operation = DistributiveOmit<Request, 'messageId' | 'controls'>;
type Attribute = { readonly name: string; readonly values: readonly Buffer[] };

const NO_CONTROLS: readonly Control[] = Object.freeze([]);
const SCOPES: readonly Scope[] = ['base', 'one', 'sub', 'children'];
const CHANGE_OPS: readonly Change['op'][] = ['add', 'delete', 'replace', 'increment'];
const MAX_DEREF_ALIASES = 3;

/** How a request is decoded. */
export interface DecodeOptions {
  /** A search's filter is built up to about this many terms, the rest only counted (SearchRequest.filterCut). */
  readonly keepFilterTerms?: number;
}

const OPERATIONS = new Map<number, (input: BerInput, options: DecodeOptions) => Operation>([
  [RequestOp.bind, decodeBind],
  [RequestOp.unbind, decodeUnbind],
  [RequestOp.search, decodeSearch],
  [RequestOp.modify, decodeModify],
  [RequestOp.add, decodeAdd],
  [RequestOp.delete, decodeDelete],
  [RequestOp.modifyDn, decodeModifyDn],
  [RequestOp.compare, decodeCompare],
  [RequestOp.abandon, decodeAbandon],
  [RequestOp.extended, decodeExtended],
]);

/**
 * Decodes one LDAPMessage frame (as returned by FrameReader) into a request: a simple bind
 * without controls by the fast path, everything else (and anything the fast path does not
 * recognise) by {@link decodeRequestFully}.
 */
export function decodeRequest(frame: Buffer, options: DecodeOptions = {}): Request {
  const bind = decodeSimpleBind(frame);
  if (bind === undefined) return decodeRequestFully(frame, options);
  const { messageId, version, name, password } = bind;
  return { messageId, controls: NO_CONTROLS, kind: 'bind', version, name, authentication: { method: 'simple', password } };
}

/** What the envelope of a request says: its message ID and kind, the rest not decoded. */
export interface RequestHead {
  readonly messageId: number;
  readonly kind: Request['kind'];
}

const KINDS = new Map<number, Request['kind']>(Object.entries(RequestOp).map(([kind, tag]) => [tag, kind as Request['kind']]));

/** The message ID and kind of a request, reading only its first elements. Throws ProtocolError. */
export function peekRequest(frame: Buffer): RequestHead {
  const end = frame.length;
  if (elementEnd(frame, 0, end, Tag.Sequence) === end) {
    const idEnd = elementEnd(frame, found.start, end, Tag.Integer);
    const messageId = idEnd < 0 ? undefined : integerAt(frame, found.start, idEnd);
    const kind = idEnd < 0 ? undefined : KINDS.get(frame[idEnd]!);
    if (messageId !== undefined && messageId >= 0 && kind !== undefined) return { messageId, kind };
  }
  return peekWithReader(frame);
}

/** peekRequest through the general reader, for what the quick path does not take (and its exact errors). */
function peekWithReader(frame: Buffer): RequestHead {
  let messageId: number | undefined;
  try {
    const input = new BerInput(frame);
    input.enter(Tag.Sequence, 'LDAPMessage');
    messageId = input.count(Tag.Integer, 'messageID');
    const tag = input.peek();
    const kind = tag === undefined ? undefined : KINDS.get(tag);
    if (kind === undefined) throw new ProtocolError(tag === undefined ? 'protocolOp: missing' : `protocolOp: unknown or not a request, tag 0x${hex(tag)}`);
    return { messageId, kind };
  } catch (error) {
    throw asProtocolError(error, messageId);
  }
}

/** Decodes any request with the general decoder (the tests compare it with the fast path). */
export function decodeRequestFully(frame: Buffer, options: DecodeOptions = {}): Request {
  let messageId: number | undefined;
  try {
    const input = new BerInput(frame);
    const outer = input.enter(Tag.Sequence, 'LDAPMessage');
    messageId = input.count(Tag.Integer, 'messageID');
    const operation = decodeOperation(input, options);
    const controls = input.peek() === Tag.Controls ? decodeControls(input) : NO_CONTROLS;
    input.leave(outer, 'LDAPMessage');
    input.finish('LDAPMessage');
    return { messageId, controls, ...operation };
  } catch (error) {
    throw asProtocolError(error, messageId);
  }
}

function decodeOperation(input: BerInput, options: DecodeOptions): Operation {
  const tag = input.peek();
  if (tag === undefined) throw new ProtocolError('protocolOp: missing');
  const decode = OPERATIONS.get(tag);
  if (decode === undefined) throw new ProtocolError(`protocolOp: unknown or not a request, tag 0x${hex(tag)}`);
  return decode(input, options);
}

function decodeBind(input: BerInput): Operation {
  const outer = input.enter(RequestOp.bind, 'BindRequest');
  const version = input.integer(Tag.Integer, 'bind version');
  const name = input.string(Tag.OctetString, 'bind name');
  const authentication = decodeAuthentication(input);
  input.leave(outer, 'BindRequest');
  return { kind: 'bind', version, name, authentication };
}

function decodeAuthentication(input: BerInput): BindAuthentication {
  const tag = input.peek();
  if (tag === Tag.SimplePassword) return { method: 'simple', password: input.octets(tag, 'bind password') };
  if (tag === Tag.Sasl) return decodeSasl(input);
  if (tag === undefined) throw new ProtocolError('bind authentication: missing');
  throw new ProtocolError(`bind authentication: unsupported choice 0x${hex(tag)}`);
}

function decodeSasl(input: BerInput): BindAuthentication {
  const outer = input.enter(Tag.Sasl, 'SaslCredentials');
  const mechanism = input.string(Tag.OctetString, 'SASL mechanism');
  const credentials = input.peek() === Tag.OctetString ? input.octets(Tag.OctetString, 'SASL credentials') : undefined;
  input.leave(outer, 'SaslCredentials');
  return credentials === undefined ? { method: 'sasl', mechanism } : { method: 'sasl', mechanism, credentials };
}

function decodeUnbind(input: BerInput): Operation {
  const content = input.octets(RequestOp.unbind, 'UnbindRequest');
  if (content.length !== 0) throw new ProtocolError('UnbindRequest: NULL must be empty');
  return { kind: 'unbind' };
}

function decodeSearch(input: BerInput, options: DecodeOptions): Operation {
  const outer = input.enter(RequestOp.search, 'SearchRequest');
  const base = input.string(Tag.OctetString, 'search baseObject');
  const scope = SCOPES[input.integer(Tag.Enumerated, 'search scope')];
  const derefAliases = input.integer(Tag.Enumerated, 'search derefAliases');
  const sizeLimit = input.integer(Tag.Integer, 'search sizeLimit');
  const timeLimit = input.integer(Tag.Integer, 'search timeLimit');
  const typesOnly = input.boolean(Tag.Boolean, 'search typesOnly');
  const { filter, terms, cut } = decodeFilterKept(input, options.keepFilterTerms ?? MAX_FILTER_ELEMENTS);
  const attributes = decodeStrings(input, Tag.Sequence, 'search attributes');
  input.leave(outer, 'SearchRequest');
  const invalid = invalidSearchParameter(scope, derefAliases, sizeLimit, timeLimit);
  return {
    kind: 'search', base, scope: scope ?? 'base', derefAliases: invalid ? 0 : derefAliases, sizeLimit: Math.max(0, sizeLimit), timeLimit: Math.max(0, timeLimit),
    typesOnly, filter, attributes, filterTerms: terms, ...(cut && { filterCut: terms }), ...(invalid && { invalid }),
  };
}

/** OpenLDAP's text for the first search parameter out of range (do_search checks them in this order), or undefined. */
function invalidSearchParameter(scope: Scope | undefined, derefAliases: number, sizeLimit: number, timeLimit: number): string | undefined {
  if (timeLimit < 0) return 'invalid time limit';
  if (sizeLimit < 0) return 'invalid size limit';
  if (scope === undefined) return 'invalid scope';
  if (derefAliases < 0 || derefAliases > MAX_DEREF_ALIASES) return 'invalid deref';
  return undefined;
}

function decodeModify(input: BerInput): Operation {
  const outer = input.enter(RequestOp.modify, 'ModifyRequest');
  const dn = input.string(Tag.OctetString, 'modify object');
  const changes = input.list(Tag.Sequence, 'modify changes', () => decodeChange(input));
  input.leave(outer, 'ModifyRequest');
  return { kind: 'modify', dn, changes };
}

function decodeChange(input: BerInput): Change {
  const outer = input.enter(Tag.Sequence, 'modify change');
  const value = input.integer(Tag.Enumerated, 'modify operation');
  const op = CHANGE_OPS[value];
  if (op === undefined) throw new ProtocolError(`modify operation: ${value} is not defined`);
  const { name, values } = decodeAttribute(input, 'modification');
  input.leave(outer, 'modify change');
  return { op, attribute: name, values };
}

function decodeAdd(input: BerInput): Operation {
  const outer = input.enter(RequestOp.add, 'AddRequest');
  const dn = input.string(Tag.OctetString, 'add entry');
  const attributes = input.list(Tag.Sequence, 'add attributes', () => decodeAddAttribute(input));
  input.leave(outer, 'AddRequest');
  return { kind: 'add', dn, attributes };
}

/** An Attribute of an AddRequest must have at least one value (RFC 4511 4.1.7). */
function decodeAddAttribute(input: BerInput): Attribute {
  const attribute = decodeAttribute(input, 'add attribute');
  if (attribute.values.length === 0) throw new ProtocolError(`add attribute ${attribute.name}: no values`);
  return attribute;
}

/** PartialAttribute ::= SEQUENCE { type AttributeDescription, vals SET OF value AttributeValue } */
function decodeAttribute(input: BerInput, what: string): Attribute {
  const outer = input.enter(Tag.Sequence, what);
  const name = input.string(Tag.OctetString, `${what} type`);
  const values = input.list(Tag.Set, `${what} values`, () => input.octets(Tag.OctetString, `${what} value`));
  input.leave(outer, what);
  return { name, values };
}

function decodeDelete(input: BerInput): Operation {
  return { kind: 'delete', dn: input.string(RequestOp.delete, 'DelRequest') };
}

function decodeModifyDn(input: BerInput): Operation {
  const outer = input.enter(RequestOp.modifyDn, 'ModifyDNRequest');
  const dn = input.string(Tag.OctetString, 'modifyDN entry');
  const newRdn = input.string(Tag.OctetString, 'modifyDN newrdn');
  const deleteOldRdn = input.boolean(Tag.Boolean, 'modifyDN deleteoldrdn');
  const newSuperior = input.peek() === Tag.NewSuperior ? input.string(Tag.NewSuperior, 'modifyDN newSuperior') : undefined;
  input.leave(outer, 'ModifyDNRequest');
  const request = { kind: 'modifyDn', dn, newRdn, deleteOldRdn } as const;
  return newSuperior === undefined ? request : { ...request, newSuperior };
}

function decodeCompare(input: BerInput): Operation {
  const outer = input.enter(RequestOp.compare, 'CompareRequest');
  const dn = input.string(Tag.OctetString, 'compare entry');
  const ava = input.enter(Tag.Sequence, 'compare ava');
  const attribute = input.string(Tag.OctetString, 'compare attributeDesc');
  const value = input.octets(Tag.OctetString, 'compare assertionValue');
  input.leave(ava, 'compare ava');
  input.leave(outer, 'CompareRequest');
  return { kind: 'compare', dn, attribute, value };
}

function decodeAbandon(input: BerInput): Operation {
  return { kind: 'abandon', abandonId: input.count(RequestOp.abandon, 'AbandonRequest') };
}

function decodeExtended(input: BerInput): Operation {
  const outer = input.enter(RequestOp.extended, 'ExtendedRequest');
  const oid = input.string(Tag.ExtendedName, 'extended requestName');
  const value = input.peek() === Tag.ExtendedValue ? input.octets(Tag.ExtendedValue, 'extended requestValue') : undefined;
  input.leave(outer, 'ExtendedRequest');
  return value === undefined ? { kind: 'extended', oid } : { kind: 'extended', oid, value };
}

/** A SEQUENCE OF LDAPString. */
function decodeStrings(input: BerInput, tag: number, what: string): string[] {
  return input.list(tag, what, () => input.string(Tag.OctetString, what));
}

/** Controls ::= [0] SEQUENCE OF control Control */
function decodeControls(input: BerInput): Control[] {
  return input.list(Tag.Controls, 'controls', () => decodeControl(input));
}

/** Control ::= SEQUENCE { controlType LDAPOID, criticality BOOLEAN DEFAULT FALSE, controlValue OCTET STRING OPTIONAL } */
function decodeControl(input: BerInput): Control {
  const outer = input.enter(Tag.Sequence, 'control');
  const type = input.string(Tag.OctetString, 'controlType');
  const critical = input.peek() === Tag.Boolean ? input.boolean(Tag.Boolean, 'control criticality') : false;
  const value = input.peek() === Tag.OctetString ? input.octets(Tag.OctetString, 'controlValue') : undefined;
  input.leave(outer, 'control');
  return value === undefined ? { type, critical } : { type, critical, value };
}

export interface SimpleBind {
  readonly messageId: number;
  readonly version: number;
  readonly name: string;
  readonly password: Buffer;
}

/**
 * The fast path for the hottest request: a simple BindRequest without controls, recognised
 * by walking the bytes once. Returns undefined for anything else (other requests, SASL binds,
 * binds with controls, malformed frames); for those, call {@link decodeRequest}. When it
 * returns a value, decodeRequest would return the same bind.
 */
export function decodeSimpleBind(frame: Buffer): SimpleBind | undefined {
  const end = frame.length;
  if (elementEnd(frame, 0, end, Tag.Sequence) !== end) return undefined;
  const idEnd = elementEnd(frame, found.start, end, Tag.Integer);
  const messageId = idEnd < 0 ? undefined : integerAt(frame, found.start, idEnd);
  if (messageId === undefined || messageId < 0) return undefined;
  const bindEnd = elementEnd(frame, idEnd, end, RequestOp.bind);
  const bindStart = found.start;
  if (bindEnd < 0 || !noControlsAfter(frame, bindEnd)) return undefined;
  const versionEnd = elementEnd(frame, bindStart, bindEnd, Tag.Integer);
  const version = versionEnd < 0 ? undefined : integerAt(frame, found.start, versionEnd);
  if (version === undefined) return undefined;
  const nameEnd = elementEnd(frame, versionEnd, bindEnd, Tag.OctetString);
  if (nameEnd < 0) return undefined;
  const nameStart = found.start;
  if (elementEnd(frame, nameEnd, bindEnd, Tag.SimplePassword) !== bindEnd) return undefined;
  const passwordStart = found.start;
  const name = utf8At(frame, nameStart, nameEnd);
  if (name === undefined) return undefined;
  return { messageId, version, name, password: frame.subarray(passwordStart, bindEnd) };
}

/** The frame ends at `pos`, or holds only an empty controls sequence after it. */
function noControlsAfter(frame: Buffer, pos: number): boolean {
  const end = frame.length;
  if (pos === end) return true;
  return elementEnd(frame, pos, end, Tag.Controls) === end && found.start === end;
}
