/**
 * Bind DNs that bound successfully, parsed and normalized, per serving thread: the same accounts
 * bind again and again. At most LIMIT (about 800 bytes each), kept once a sample of the names
 * (sampled-hit-rate.ts, with the last names exactly) says a cache of LIMIT names would answer at
 * least a quarter of the binds, and while it answers an eighth: with 100,000 accounts binding at
 * random it would answer one in ten and hold about 20 MB of the process (docs/performance.md, "A
 * bound-name cache judged by a sample"). When full it starts over, but at most once every
 * REFILL_MILLIS: with many more accounts than that binding at random, a cache refilled at once
 * only churns (every entry outlives V8's young generation and becomes
 * old-generation garbage: tens of MB of heap with 100,000 users), for a parse that takes 1.4-2.5 µs
 * (3.8-5.4 before normalizeLeafRdn; docs/performance.md, "Again on 2026-12-04, and what a bind
 * costs at each size").
 * A name not kept is parsed from its first RDN and its parent's meaning, kept per parent text
 * (the accounts of a directory sit under a few parents), so even then only the first RDN is
 * parsed and normalized.
 */
import { SampledHitRate } from './sampled-hit-rate.js';
import {
  dnKey, formatDn, formatRdn, keyBelowNormalized, normalizedDnOf, normalizeLeafRdn, parseDn, SchemaMemo, splitPlainFirstRdn, type Dn,
} from '../store/index.js';

interface BindDn {
  readonly dn: Dn;
  readonly normalized: string;
  /** The entry's dnKey: the bind reads it by this, with no normalizing. */
  readonly key: string;
  /** RFC 4514 without the client's stray spaces: the identity Who Am I and modifiersName show. */
  readonly pretty: string;
}

const LIMIT = 10_000;
/** Parents kept, of texts up to 512 characters. */
const PARENTS = 1024;
const REFILL_MILLIS = 30_000;
/** Longer names are never kept: the cache must not be a way to fill memory. */
const CACHED_NAME_LIMIT = 512;

/** A DN's text parsed whole (invalidDnSyntax if it is not a DN); its normalized form read off its key. */
function parsedWhole(name: string): BindDn {
  const dn = parseDn(name);
  const key = dnKey(dn);
  return { dn, normalized: normalizedDnOf(key), key, pretty: formatDn(dn) };
}

export class BindNames {
  private readonly names = new Map<string, BindDn>();
  private readonly parents = new SchemaMemo<BindDn>(PARENTS, CACHED_NAME_LIMIT);
  private filledAt = 0;
  private readonly hitRate = new SampledHitRate(LIMIT, REFILL_MILLIS);

  /** Names kept now (for the tests). */
  get size(): number {
    return this.names.size;
  }

  /** The name parsed (invalidDnSyntax if it is not a DN), from the cache when it bound before. */
  parse(name: string): BindDn {
    const kept = this.hitRate.worthKeeping ? this.names.get(name) : undefined;
    if (this.hitRate.looked(name, kept !== undefined)) return kept ?? this.parsedBelowParent(name);
    if (this.names.size > 0) this.names.clear();
    return this.parsedBelowParent(name);
  }

  /** Remembers a DN that just bound. */
  bound(name: string, parsed: BindDn): void {
    if (name.length > CACHED_NAME_LIMIT) return;
    if (!this.hitRate.worthKeeping) {
      this.hitRate.kept(name);
      return;
    }
    if (this.names.has(name)) return;
    if (this.names.size >= LIMIT) {
      if (Date.now() - this.filledAt < REFILL_MILLIS) return;
      this.names.clear();
    }
    this.names.set(name, parsed);
    if (this.names.size === LIMIT) this.filledAt = Date.now();
  }

  /** The same as parsedWhole, from the first RDN and the parent's kept meaning where the first RDN is plain. */
  private parsedBelowParent(name: string): BindDn {
    const split = name.length <= CACHED_NAME_LIMIT ? splitPlainFirstRdn(name) : undefined;
    if (split === undefined) return parsedWhole(name);
    const [rdn] = parseDn(split[0]);
    const parent = this.parents.get(split[1], parsedWhole);
    if (rdn === undefined || parent.dn.length === 0) return parsedWhole(name);
    const normalizedRdn = normalizeLeafRdn(rdn);
    const key = keyBelowNormalized(parent.key, normalizedRdn);
    return { dn: [rdn, ...parent.dn], normalized: `${normalizedRdn},${parent.normalized}`, key, pretty: `${formatRdn(rdn)},${parent.pretty}` };
  }
}
