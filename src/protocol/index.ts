/** The LDAP wire layer: framing, request decoding, response encoding, control values. */
export type { BindAuthentication, Change, Control, Request, Result, Scope } from './types.js';
export { FrameError, ProtocolError, type FrameErrorKind } from './errors.js';
export { DEFAULT_MAX_FRAME_BYTES, FrameReader, type FrameReaderOptions } from './framing.js';
export { decodeRequest, decodeRequestFully, decodeSimpleBind, peekRequest, RequestOp, type DecodeOptions, type RequestHead, type SimpleBind } from './decode.js';
export { MAX_FILTER_DEPTH, MAX_FILTER_ELEMENTS } from './decode-filter.js';
export {
  encodeBindResponse,
  encodeExtendedResponse,
  encodeNoticeOfDisconnection,
  encodeResult,
  encodeSearchDone,
  NOTICE_OF_DISCONNECTION_OID,
  START_TLS_OID,
  ResponseOp,
  type EntryAttribute,
} from './encode.js';
export { encodeEntryValue, encodeSearchEntry, encodeSlicedSearchEntry, type SlicedEntry } from './encode-entry.js';
export {
  ASSERTION_OID,
  checkPasswordPolicyRequest,
  decodeAssertion,
  decodeAttributeSelection,
  decodePagedResults,
  encodePagedResults,
  encodePasswordPolicyResponse,
  MANAGE_DSA_IT_OID,
  PAGED_RESULTS_OID,
  PASSWORD_POLICY_OID,
  PasswordPolicyError,
  POST_READ_OID,
  PRE_READ_OID,
  type PagedResults,
  type PasswordPolicyErrorName,
  type PasswordPolicyResponse,
} from './controls.js';
export { decodePasswordModify, encodePasswordModifyResponse, PASSWORD_MODIFY_OID, type PasswordModifyRequest } from './password-modify.js';
export { ResultCode, type ResultCodeName } from './result-codes.js';
export { decodeSearchEntry, type ClientEntry } from './search-entry.js';
