/** LDAPv3 requests (RFC 4511) as the server sees them after decoding. Strings are UTF-8. */
import type { Filter } from './filter.js';

export interface Control {
  readonly type: string;
  readonly critical: boolean;
  readonly value?: Buffer;
}

interface RequestBase {
  readonly messageId: number;
  readonly controls: readonly Control[];
}

export type Scope = 'base' | 'one' | 'sub' | 'children';

export interface Change {
  readonly op: 'add' | 'delete' | 'replace' | 'increment';
  readonly attribute: string;
  readonly values: readonly Buffer[];
}

export type BindAuthentication =
  | { readonly method: 'simple'; readonly password: Buffer }
  | { readonly method: 'sasl'; readonly mechanism: string; readonly credentials?: Buffer };

export interface BindRequest extends RequestBase {
  readonly kind: 'bind';
  readonly version: number;
  readonly name: string;
  readonly authentication: BindAuthentication;
}
export interface UnbindRequest extends RequestBase { readonly kind: 'unbind' }
export interface SearchRequest extends RequestBase {
  readonly kind: 'search';
  readonly base: string;
  readonly scope: Scope;
  readonly derefAliases: number;
  readonly sizeLimit: number;
  readonly timeLimit: number;
  readonly typesOnly: boolean;
  readonly filter: Filter;
  readonly attributes: readonly string[];
  /**
   * A parameter out of range (a negative size or time limit, an undefined scope or derefAliases):
   * OpenLDAP's text for it ("invalid time limit", ...). The search answers protocolError with it
   * and the connection goes on, as in OpenLDAP; the field it names holds a stand-in.
   */
  readonly invalid?: string;
  /**
   * The filter's size in terms as sent (every and/or/not and every assertion), counted by the
   * decoder. A filter's cost on an entry grows with it, so the server's limits are in terms: the
   * caps on filter size (--max-filter-terms-anonymous, --max-filter-terms), the cost budget of a
   * search (terms x entries examined) and a search's weight among a connection's operations in flight.
   */
  readonly filterTerms: number;
  /**
   * Set when the filter had more terms than the decoder was asked to keep
   * (DecodeOptions.keepFilterTerms): the number of terms sent. `filter` then holds only the
   * first of them, and the search is to be refused, never run.
   */
  readonly filterCut?: number;
}
export interface CompareRequest extends RequestBase { readonly kind: 'compare'; readonly dn: string; readonly attribute: string; readonly value: Buffer }
export interface AbandonRequest extends RequestBase { readonly kind: 'abandon'; readonly abandonId: number }
export interface ExtendedRequest extends RequestBase { readonly kind: 'extended'; readonly oid: string; readonly value?: Buffer }
export interface AddRequest extends RequestBase {
  readonly kind: 'add';
  readonly dn: string;
  readonly attributes: readonly { readonly name: string; readonly values: readonly Buffer[] }[];
}
export interface DeleteRequest extends RequestBase { readonly kind: 'delete'; readonly dn: string }
export interface ModifyRequest extends RequestBase { readonly kind: 'modify'; readonly dn: string; readonly changes: readonly Change[] }
export interface ModifyDnRequest extends RequestBase {
  readonly kind: 'modifyDn';
  readonly dn: string;
  readonly newRdn: string;
  readonly deleteOldRdn: boolean;
  readonly newSuperior?: string;
}

/** Every request, one named type per kind. */
export type Request =
  | BindRequest | UnbindRequest | SearchRequest | CompareRequest | AbandonRequest | ExtendedRequest
  | AddRequest | DeleteRequest | ModifyRequest | ModifyDnRequest;

/** The result part of every response (RFC 4511 4.1.9). */
export interface Result {
  readonly code: number;
  readonly matchedDn?: string;
  readonly message?: string;
}
