/**
 * Bind DNs that bound successfully, parsed and normalized, per serving thread: the same accounts
 * bind again and again. At most LIMIT (about 800 bytes each); when full it starts over, but at
 * most once every REFILL_MILLIS: with many more accounts than that binding at random, a cache
 * refilled at once only churns (every entry outlives V8's young generation and becomes
 * old-generation garbage: tens of MB of heap with 100,000 users), for a parse that takes 4-8 µs.
 */
import { formatDn, normalizeDn, parseDn, type Dn } from '../store/index.js';

interface BindDn {
  readonly dn: Dn;
  readonly normalized: string;
  /** RFC 4514 without the client's stray spaces: the identity Who Am I and modifiersName show. */
  readonly pretty: string;
}

const LIMIT = 10_000;
const REFILL_MILLIS = 30_000;
/** Longer names are never kept: the cache must not be a way to fill memory. */
const CACHED_NAME_LIMIT = 512;

export class BindNames {
  private readonly names = new Map<string, BindDn>();
  private filledAt = 0;

  /** The name parsed (invalidDnSyntax if it is not a DN), from the cache when it bound before. */
  parse(name: string): BindDn {
    const cached = this.names.get(name);
    if (cached) return cached;
    const dn = parseDn(name);
    return { dn, normalized: normalizeDn(dn), pretty: formatDn(dn) };
  }

  /** Remembers a DN that just bound. */
  bound(name: string, parsed: BindDn): void {
    if (name.length > CACHED_NAME_LIMIT || this.names.has(name)) return;
    if (this.names.size >= LIMIT) {
      if (Date.now() - this.filledAt < REFILL_MILLIS) return;
      this.names.clear();
    }
    this.names.set(name, parsed);
    if (this.names.size === LIMIT) this.filledAt = Date.now();
  }
}
