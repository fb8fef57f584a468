/**
 * Would a cache of CAPACITY names answer enough lookups to be worth its memory? Judged before the
 * cache is filled, from a spatial sample (as SHARDS does: Waldspurger et al., FAST 2015): only the
 * names whose hash falls in one RATE-th of the hash space are followed, in a shadow set of
 * CAPACITY / RATE names run by the cache's own policy (fill, then start over at most once every
 * refillMillis). The shadow's hit rate over the last WINDOW sampled lookups estimates the full
 * cache's; until the first window closes the cache is judged not worth keeping.
 *
 *   names ──hash──► 1 in RATE sampled ──► shadow (CAPACITY / RATE names) ──► hits / lookups
 *                                                                                  │
 *                                          worthKeeping ◄── at least MIN_HIT_RATE ◄┘
 */

/** One name in RATE is followed. */
const RATE = 16;
/** Sampled lookups a verdict is drawn from. */
const WINDOW = 1024;
/** The share of lookups a kept cache must answer. */
const MIN_HIT_RATE = 0.25;

/** FNV-1a over the UTF-16 code units: cheap, and spread well enough to sample by. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const sampled = (name: string): boolean => hashOf(name) % RATE === 0;

export class SampledHitRate {
  private readonly shadow = new Set<string>();
  private readonly shadowLimit: number;
  private filledAt = 0;
  private lookups = 0;
  private hits = 0;
  private worth = false;

  constructor(capacity: number, private readonly refillMillis: number) {
    this.shadowLimit = Math.max(1, Math.floor(capacity / RATE));
  }

  /** True once the last window's sampled lookups were answered often enough. */
  get worthKeeping(): boolean {
    return this.worth;
  }

  /** A lookup of the cache, answered or not; returns the verdict, drawn anew when a window closes. */
  looked(name: string): boolean {
    if (!sampled(name)) return this.worth;
    this.lookups += 1;
    if (this.shadow.has(name)) this.hits += 1;
    if (this.lookups < WINDOW) return this.worth;
    this.worth = this.hits >= this.lookups * MIN_HIT_RATE;
    this.lookups = 0;
    this.hits = 0;
    return this.worth;
  }

  /** A name the cache would keep now, kept or not. */
  kept(name: string): void {
    if (!sampled(name) || this.shadow.has(name)) return;
    if (this.shadow.size >= this.shadowLimit) {
      if (Date.now() - this.filledAt < this.refillMillis) return;
      this.shadow.clear();
    }
    this.shadow.add(name);
    if (this.shadow.size === this.shadowLimit) this.filledAt = Date.now();
  }
}
