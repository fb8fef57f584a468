/**
 * Would a cache of CAPACITY names answer enough lookups to be worth its memory? Judged before the
 * cache is filled, from a spatial sample (as SHARDS does: Waldspurger et al., FAST 2015): only the
 * names whose hash falls in one RATE-th of the hash space are followed, in a shadow set of
 * CAPACITY / RATE names run by the cache's own policy (fill, then start over at most once every
 * refillMillis). The shadow's hit rate over WINDOW sampled lookups estimates the full cache's;
 * until the first window closes the cache is judged not worth keeping. Once kept, the cache is
 * judged by its own answers, which costs nothing a lookup (the sample hashes every name): let go
 * when it answers less than half the share it had to show (one lookup in eight), over any window
 * after the one in which it fills (hysteresis, so that a cache near the line is not made and
 * dropped over and over).
 *
 *   not kept: names ──hash──► 1 in RATE ──► shadow ──► hits / lookups ≥ MIN_HIT_RATE ──► kept
 *   kept:     the cache's own hits / lookups < MIN_HIT_RATE / 2 ──► not kept
 */

/** One name in RATE is followed. */
const RATE = 16;
/** Sampled lookups a verdict is drawn from. */
const WINDOW = 1024;
/** The share of lookups a cache must be shown to answer to be kept... */
const MIN_HIT_RATE = 0.25;
/** ...and the share under which a kept one is let go. */
const DROP_HIT_RATE = MIN_HIT_RATE / 2;
/** Lookups a kept cache is judged over: as many as a sampled window's. */
const KEPT_WINDOW = WINDOW * RATE;

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
  /** Kept, and its first window (the cache filling) not judged yet. */
  private filling = false;

  constructor(capacity: number, private readonly refillMillis: number) {
    this.shadowLimit = Math.max(1, Math.floor(capacity / RATE));
  }

  /** Whether the cache is worth keeping now. */
  get worthKeeping(): boolean {
    return this.worth;
  }

  /** A lookup of the cache (`answered` by it, when kept); returns the verdict, drawn anew when a window closes. */
  looked(name: string, answered: boolean): boolean {
    return this.worth ? this.lookedKept(answered) : this.lookedSampled(name);
  }

  /** A name the cache would keep now (the shadow's, while the cache is not kept). */
  kept(name: string): void {
    if (this.worth || !sampled(name) || this.shadow.has(name)) return;
    if (this.shadow.size >= this.shadowLimit) {
      if (Date.now() - this.filledAt < this.refillMillis) return;
      this.shadow.clear();
    }
    this.shadow.add(name);
    if (this.shadow.size === this.shadowLimit) this.filledAt = Date.now();
  }

  private lookedSampled(name: string): boolean {
    if (!sampled(name)) return false;
    this.lookups += 1;
    if (this.shadow.has(name)) this.hits += 1;
    if (this.lookups < WINDOW) return false;
    this.worth = this.hits >= this.lookups * MIN_HIT_RATE;
    this.filling = this.worth;
    this.restartWindow();
    return this.worth;
  }

  private lookedKept(answered: boolean): boolean {
    this.lookups += 1;
    if (answered) this.hits += 1;
    if (this.lookups < KEPT_WINDOW) return true;
    this.worth = this.filling || this.hits >= this.lookups * DROP_HIT_RATE;
    this.filling = false;
    this.restartWindow();
    return this.worth;
  }

  private restartWindow(): void {
    this.lookups = 0;
    this.hits = 0;
  }
}
