/**
 * Extended operations, one handler per OID: Who Am I (RFC 4532), Password Modify (RFC 3062,
 * password-modify.ts). StartTLS is the connection's (connection.ts, start-tls.ts): it
 * changes the transport, so it is taken on arrival and never reaches this table. Other OIDs
 * answer protocolError, as OpenLDAP does.
 */
import { ResultCode, PASSWORD_MODIFY_OID } from '../../protocol/index.js';
import type { ExtendedRequest } from '../../protocol/types.js';
import type { OperationContext, Reply } from '../context.js';
import type { ServerConfig } from '../config.js';
import { START_TLS_OID } from './start-tls.js';
import { passwordModify } from './password-modify.js';

type ExtendedHandler = (request: ExtendedRequest, context: OperationContext) => Promise<Reply> | Reply;

const WHO_AM_I_OID = '1.3.6.1.4.1.4203.1.11.3';

/** The authorization identity: "dn:<bound DN>", or empty when anonymous. A request value is refused, as OpenLDAP does. */
function whoAmI(request: ExtendedRequest, context: OperationContext): Reply {
  if (request.value !== undefined) return { code: ResultCode.protocolError, message: 'no request data expected' };
  const identity = context.session.anonymous ? '' : `dn:${context.session.dn}`;
  return { code: ResultCode.success, responseValue: Buffer.from(identity, 'utf8') };
}

const HANDLERS: ReadonlyMap<string, ExtendedHandler> = new Map<string, ExtendedHandler>([
  [WHO_AM_I_OID, whoAmI],
  [PASSWORD_MODIFY_OID, passwordModify],
]);

/** The OIDs the root DSE announces: the table's, and StartTLS when a certificate is configured. */
export function supportedExtensions(config: ServerConfig): string[] {
  return [...HANDLERS.keys(), ...(config.tls ? [START_TLS_OID] : [])];
}

export async function extended(request: ExtendedRequest, context: OperationContext): Promise<Reply> {
  const handler = HANDLERS.get(request.oid);
  if (handler) return handler(request, context);
  return { code: ResultCode.protocolError, message: `unsupported extended operation ${request.oid}` };
}
