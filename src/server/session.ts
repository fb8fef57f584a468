/** Per-connection state: who is bound, and the operations in progress (for abandon). */
import { normalizeDn } from '../store/index.js';
import { PagedSearches } from './paging.js';

export class Session {
  /** The bound DN as the client wrote it ('' = anonymous). */
  dn = '';
  /** Its normalized form, for comparisons. */
  normalizedDn = '';
  isAdmin = false;
  private readonly operations = new Map<number, AbortController>();
  readonly paged: PagedSearches;

  constructor(readonly id: number, readonly remote: string, maxPagedSearches: number) {
    this.paged = new PagedSearches(maxPagedSearches);
  }

  get anonymous(): boolean {
    return this.dn === '';
  }

  bindAs(dn: string, isAdmin: boolean): void {
    this.dn = dn;
    this.normalizedDn = dn === '' ? '' : normalizeDn(dn);
    this.isAdmin = isAdmin;
  }

  /** Registers an operation; its signal fires on abandon or when the connection closes. */
  start(messageId: number): AbortSignal {
    const controller = new AbortController();
    this.operations.set(messageId, controller);
    return controller.signal;
  }

  finish(messageId: number): void {
    this.operations.delete(messageId);
  }

  abandon(messageId: number): void {
    this.operations.get(messageId)?.abort();
  }

  /** The connection is closing: stop everything it started. */
  abandonAll(): void {
    for (const controller of this.operations.values()) controller.abort();
    this.operations.clear();
    this.paged.releaseAll();
  }

  get outstanding(): number {
    return this.operations.size;
  }
}
