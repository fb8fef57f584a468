/**
 * The request controls the server understands, per operation, in one table (SUPPORTED_CONTROLS):
 * dispatch.ts refuses any other control marked critical with unavailableCriticalExtension (12,
 * RFC 4511 4.1.11) and ignores the others; the root DSE lists them all as supportedControl. A
 * control the server understands but that a request carries twice is a protocolError (2), as
 * OpenLDAP answers. What each control does: assertion.ts (RFC 4528), read-entry.ts (RFC 4527),
 * handlers/bind.ts (the password policy control), handlers/search-paging.ts (RFC 2696).
 */
import {
  ASSERTION_OID, MANAGE_DSA_IT_OID, PAGED_RESULTS_OID, PASSWORD_POLICY_OID, POST_READ_OID, PRE_READ_OID, ProtocolError,
} from '../protocol/index.js';
import type { Control, Request } from '../protocol/types.js';

type ControlledKind = Exclude<Request['kind'], 'unbind' | 'abandon'>;

/**
 * Which controls each operation acts on. ManageDsaIT is accepted everywhere (there are no
 * referrals to manage); assertion on every operation RFC 4528 names (add, compare, delete,
 * modify, modify DN, search); pre-read and post-read where RFC 4527 puts them; the password
 * policy control on bind.
 */
export const SUPPORTED_CONTROLS: Readonly<Record<ControlledKind, readonly string[]>> = {
  bind:     [MANAGE_DSA_IT_OID, PASSWORD_POLICY_OID],
  search:   [MANAGE_DSA_IT_OID, PAGED_RESULTS_OID, ASSERTION_OID],
  compare:  [MANAGE_DSA_IT_OID, ASSERTION_OID],
  add:      [MANAGE_DSA_IT_OID, ASSERTION_OID, POST_READ_OID],
  delete:   [MANAGE_DSA_IT_OID, ASSERTION_OID, PRE_READ_OID],
  modify:   [MANAGE_DSA_IT_OID, ASSERTION_OID, PRE_READ_OID, POST_READ_OID],
  modifyDn: [MANAGE_DSA_IT_OID, ASSERTION_OID, PRE_READ_OID, POST_READ_OID],
  extended: [MANAGE_DSA_IT_OID],
};

/** Every control some operation understands (the root DSE's supportedControl). */
export function supportedControls(): string[] {
  return [...new Set(Object.values(SUPPORTED_CONTROLS).flat())];
}

/** The first critical control the operation does not understand, if any. */
export function unsupportedCriticalControl(request: Request & { kind: ControlledKind }): Control | undefined {
  const supported = SUPPORTED_CONTROLS[request.kind];
  return request.controls.find((control) => control.critical && !supported.includes(control.type));
}

/**
 * The request's control of this type, if its operation acts on it (else undefined: a control
 * not in the table is ignored, or refused above when critical). Twice: protocolError.
 */
export function requestControl(request: Request, oid: string): Control | undefined {
  if (request.kind === 'unbind' || request.kind === 'abandon' || !SUPPORTED_CONTROLS[request.kind].includes(oid)) return undefined;
  const found = request.controls.filter((control) => control.type === oid);
  if (found.length > 1) throw new ProtocolError(`control ${oid} specified multiple times`);
  return found[0];
}
