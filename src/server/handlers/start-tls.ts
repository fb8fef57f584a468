/**
 * StartTLS (RFC 4511 4.14, RFC 4513 3): whether a request may upgrade the connection, answered
 * as OpenLDAP's slapd answers. The upgrade itself is the connection's (connection.ts): it takes
 * the request on arrival, reads nothing more as LDAP, answers in clear and goes on over TLS.
 * Without a certificate the request is an unsupported extended operation (protocolError), as
 * it is for a slapd without TLS.
 */
import { ResultCode, START_TLS_OID } from '../../protocol/index.js';
import type { ExtendedRequest, Request } from '../../protocol/types.js';
import type { Reply } from '../context.js';
import type { Session } from '../net/session.js';
import { unsupportedCriticalControl } from '../controls.js';

export { START_TLS_OID };

export function isStartTls(request: Request): request is ExtendedRequest {
  return request.kind === 'extended' && request.oid === START_TLS_OID;
}

/** The answer that accepts: success, sent in clear; TLS follows. */
export const START_TLS_ACCEPTED: Reply = { code: ResultCode.success, responseName: START_TLS_OID };

/** Why the connection cannot start TLS now (`waiting`: requests read but not started), or undefined. */
export function startTlsRefusal(request: ExtendedRequest, session: Session, waiting: number): Reply | undefined {
  const refuse = (code: number, message: string): Reply => ({ code, message, responseName: START_TLS_OID });
  const control = unsupportedCriticalControl(request); // StartTLS does not go through dispatch, which refuses them elsewhere
  if (control) return refuse(ResultCode.unavailableCriticalExtension, `critical control ${control.type} is not supported`);
  if (request.value !== undefined) return refuse(ResultCode.protocolError, 'no request data expected');
  if (session.secure) return refuse(ResultCode.operationsError, 'TLS already started');
  if (session.outstanding + waiting > 0) return refuse(ResultCode.operationsError, 'cannot start TLS when operations are outstanding');
  return undefined;
}
