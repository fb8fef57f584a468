/**
 * Simple paged results (RFC 2696): a search's iterator stays open between pages, under an
 * opaque random cookie bound to the connection and to the search it was issued for.
 */
import { randomBytes } from 'node:crypto';
import { closeSource, type EntryRecord, type RecordSource } from '../../store/index.js';
import type { Readable } from '../access.js';

/** An entry that matched (as the store read it), with its computed hasSubordinates and memberOf when they were needed. */
export interface Matched {
  readonly found: EntryRecord;
  readonly hasSubordinates?: boolean;
  readonly memberOf?: readonly Buffer[];
  /** What the searching client may see of this entry (userPassword, the password policy state). */
  readonly readable: Readable;
}

interface PagedSearch {
  /** base, scope, filter and attributes of the search; a cookie only continues the same search. */
  readonly signature: string;
  readonly entries: RecordSource;
  /** The entry that matched but did not fit the previous page. */
  readonly carried: readonly Matched[];
  /** Entries sent on the earlier pages (the client's size limit counts them all). */
  readonly sentBefore: number;
  /** The search's cost so far (entries examined x filter terms): its budget is for all its pages. */
  readonly costBefore: number;
}

export class PagedSearches {
  private readonly open = new Map<string, PagedSearch>();
  /** Set when the connection closed: a search finishing a page afterwards is closed, not kept. */
  private closed = false;

  constructor(private readonly limit: number) {}

  /** Keeps a search for its next page and returns the cookie; the oldest is dropped past the limit. */
  keep(search: PagedSearch): Buffer {
    if (this.closed) {
      void closeSource(search.entries);
      return Buffer.alloc(0);
    }
    if (this.open.size >= this.limit) {
      const [oldest] = this.open.keys();
      this.release(oldest!);
    }
    const cookie = randomBytes(12);
    this.open.set(cookie.toString('hex'), search);
    return cookie;
  }

  /** The search a cookie continues, removed from the open set (it is kept again if more remain). */
  take(cookie: Buffer): PagedSearch | undefined {
    const key = cookie.toString('hex');
    const search = this.open.get(key);
    this.open.delete(key);
    return search;
  }

  release(key: string): void {
    const search = this.open.get(key);
    this.open.delete(key);
    if (search) void closeSource(search.entries);
  }

  /** The connection closed: every open search is released, and none is kept any more. */
  releaseAll(): void {
    this.closed = true;
    this.releaseOpen();
  }

  /** Releases every open search (the connection's identity changed: a cookie does not carry over). */
  releaseOpen(): void {
    if (this.open.size === 0) return;
    for (const key of [...this.open.keys()]) this.release(key);
  }
}
