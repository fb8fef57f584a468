/** Per-connection state: who is bound, and the operations in progress (for abandon). */
import { normalizeDn } from '../../store/index.js';
import { OperationSlots } from './operation-slots.js';
import { PagedSearches } from './paged-searches.js';

/** Set when an operation is abandoned or its connection closes; handlers poll it. */
export class OperationSignal {
  aborted = false;
  /** A bind cannot be abandoned (RFC 4511 4.11). */
  constructor(readonly isBind = false) {}
}

export class Session {
  /** The bound DN as the client wrote it ('' = anonymous). */
  dn = '';
  /** Its normalized form, for comparisons. */
  normalizedDn = '';
  isAdmin = false;
  /** Is the connection protected by TLS (LDAPS, or after StartTLS)? */
  secure = false;
  private readonly operations = new OperationSlots<OperationSignal>();
  readonly paged: PagedSearches;

  constructor(readonly id: number, readonly remote: string, maxPagedSearches: number) {
    this.paged = new PagedSearches(maxPagedSearches);
  }

  get anonymous(): boolean {
    return this.dn === '';
  }

  /**
   * Binds the session; pass the normalized DN when the caller already has it. Paged searches left
   * open by another identity are released: their next page would be read with the old rights.
   */
  bindAs(dn: string, isAdmin: boolean, normalizedDn = dn === '' ? '' : normalizeDn(dn)): void {
    if (normalizedDn !== this.normalizedDn || isAdmin !== this.isAdmin) this.paged.releaseOpen();
    this.dn = dn;
    this.normalizedDn = normalizedDn;
    this.isAdmin = isAdmin;
  }

  /** Registers an operation; its signal is set on abandon or when the connection closes. */
  start(messageId: number, isBind = false): OperationSignal {
    const signal = new OperationSignal(isBind);
    this.operations.set(messageId, signal);
    return signal;
  }

  finish(messageId: number): void {
    this.operations.delete(messageId);
  }

  abandon(messageId: number): void {
    const signal = this.operations.get(messageId);
    if (signal && !signal.isBind) signal.aborted = true;
  }

  isRunning(messageId: number): boolean {
    return this.operations.has(messageId);
  }

  /** The connection is closing: stop everything it started. */
  abandonAll(): void {
    for (const signal of this.operations.takeAll()) signal.aborted = true;
    this.paged.releaseAll();
  }

  get outstanding(): number {
    return this.operations.size;
  }
}
