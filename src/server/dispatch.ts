/**
 * One handler per operation, and the one place that turns what a handler returns or throws
 * into the operation's response: a DirectoryError becomes its result code, an unexpected error
 * becomes `other` (logged, never a crash), an abandoned operation gets no response.
 */
import { dnSizeProblem, DirectoryError, normalizeDn } from '../store/index.js';
import { ResultCode, ProtocolError, encodeBindResponse, encodeExtendedResponse, encodeResult, encodeSearchDone, ResponseOp } from '../protocol/index.js';
import { dnLimitsOf, type Limits } from './config.js';
import type { Request } from '../protocol/types.js';
import type { OperationContext, Reply } from './context.js';
import { Abandoned } from './errors.js';
import { unsupportedCriticalControl } from './controls.js';
import { bind } from './handlers/bind.js';
import { compare } from './handlers/compare.js';
import { extended } from './handlers/extended.js';
import { search } from './handlers/search.js';
import { add } from './handlers/add.js';
import { remove } from './handlers/delete.js';
import { modify } from './handlers/modify.js';
import { modifyDn } from './handlers/modify-dn.js';

/** Requests that get a response, by kind. */
export type AnsweredRequest = Exclude<Request, { kind: 'unbind' | 'abandon' }>;
type Handler = (request: never, context: OperationContext) => Promise<Reply>;

const HANDLERS: Record<AnsweredRequest['kind'], Handler> = {
  bind, search, compare, extended, add, delete: remove, modify, modifyDn,
};

/** unavailableCriticalExtension (12) for a critical control the operation does not act on (controls.ts; RFC 4511 4.1.11). */
function criticalControlRefusal(request: AnsweredRequest): Reply | undefined {
  const control = unsupportedCriticalControl(request);
  return control && { code: ResultCode.unavailableCriticalExtension, message: `critical control ${control.type} is not supported` };
}

/** The DNs a request names (bind name, base, entry, new RDN and superior). */
function requestDns(request: AnsweredRequest): string[] {
  switch (request.kind) {
    case 'bind': return [request.name];
    case 'search': return [request.base];
    case 'modifyDn': return [request.dn, request.newRdn, ...(request.newSuperior === undefined ? [] : [request.newSuperior])];
    case 'extended': return [];
    default: return [request.dn];
  }
}

/** invalidDNSyntax (34) for a DN over --max-dn-length or --max-dn-rdns, found before any DN is parsed (Password Modify checks its own). */
function oversizedDn(request: AnsweredRequest, limits: Limits): Reply | undefined {
  const dnLimits = dnLimitsOf(limits);
  for (const dn of requestDns(request)) {
    const problem = dnSizeProblem(dn, dnLimits);
    if (problem) return { code: ResultCode.invalidDnSyntax, message: `invalid DN: ${problem}` };
  }
  return undefined;
}

function replyForError(error: unknown, context: OperationContext, request: AnsweredRequest): Reply | undefined {
  if (error instanceof Abandoned) return undefined;
  if (error instanceof DirectoryError) return { code: error.code, matchedDn: error.matchedDn, message: error.message };
  if (error instanceof ProtocolError) return { code: ResultCode.protocolError, message: error.message };
  context.server.log.error({ err: error, conn: context.session.id, op: request.kind, msgid: request.messageId }, 'operation failed');
  return { code: ResultCode.other, message: 'internal error' };
}

function normalizedOrEmpty(dn: string): string {
  try {
    return normalizeDn(dn);
  } catch {
    return '';
  }
}

/**
 * unavailable (52) for a read of a node's local copy when the store it copies has been silent
 * for longer than --max-staleness (docs/scale-out.md); the root DSE and the admin's bind answer.
 */
function staleRefusal(request: AnsweredRequest, context: OperationContext): Reply | undefined {
  const stale = context.server.store.staleReason();
  if (stale === undefined) return undefined;
  const rootDse = request.kind === 'search' && request.base === '' && request.scope === 'base';
  const adminBind = request.kind === 'bind' && normalizedOrEmpty(request.name) === context.server.admin.normalizedDn;
  if (rootDse || adminBind || request.kind === 'extended' || (request.kind === 'bind' && request.name === '')) return undefined;
  return { code: ResultCode.unavailable, message: stale };
}

/** Runs the operation; undefined means no response is due (abandoned). */
export async function perform(request: AnsweredRequest, context: OperationContext): Promise<Reply | undefined> {
  // A bind starts anonymous whatever its outcome, even a refusal before it runs (RFC 4513 4).
  if (request.kind === 'bind') context.session.bindAs('', false);
  try {
    const refusal = criticalControlRefusal(request) ?? oversizedDn(request, context.server.config.limits) ?? staleRefusal(request, context);
    if (refusal) return refusal;
    return await (HANDLERS[request.kind] as (request: AnsweredRequest, context: OperationContext) => Promise<Reply>)(request, context);
  } catch (error) {
    return replyForError(error, context, request);
  }
}

/** The response message for a reply, in the type the request calls for. */
export function encodeReply(request: AnsweredRequest, reply: Reply): Buffer {
  const id = request.messageId;
  switch (request.kind) {
    case 'bind': return encodeBindResponse(id, reply, undefined, reply.controls);
    case 'search': return encodeSearchDone(id, reply, reply.controls);
    case 'extended': return encodeExtendedResponse(id, reply, reply.responseName, reply.responseValue);
    case 'compare': return encodeResult(id, ResponseOp.compare, reply, reply.controls);
    case 'add': return encodeResult(id, ResponseOp.add, reply, reply.controls);
    case 'delete': return encodeResult(id, ResponseOp.delete, reply, reply.controls);
    case 'modify': return encodeResult(id, ResponseOp.modify, reply, reply.controls);
    case 'modifyDn': return encodeResult(id, ResponseOp.modifyDn, reply, reply.controls);
  }
}
