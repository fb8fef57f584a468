/**
 * Extended operations: Who Am I (RFC 4532). Password Modify comes with the write path
 * (issue 6) and StartTLS with transport security (issue 7); other OIDs answer protocolError,
 * as OpenLDAP does.
 */
import { ResultCode } from '../../store/index.js';
import type { Request } from '../protocol/types.js';
import type { OperationContext, Reply } from '../context.js';

type ExtendedRequest = Extract<Request, { kind: 'extended' }>;

export const WHO_AM_I_OID = '1.3.6.1.4.1.4203.1.11.3';

/** The authorization identity: "dn:<bound DN>", or empty when anonymous. */
function whoAmI(context: OperationContext): Reply {
  const identity = context.session.anonymous ? '' : `dn:${context.session.dn}`;
  return { code: ResultCode.success, responseValue: Buffer.from(identity, 'utf8') };
}

export async function extended(request: ExtendedRequest, context: OperationContext): Promise<Reply> {
  if (request.oid === WHO_AM_I_OID) return whoAmI(context);
  return { code: ResultCode.protocolError, message: `unsupported extended operation ${request.oid}` };
}
