/**
 * Would a cache of CAPACITY names answer enough lookups to be worth its memory? Judged before the
 * cache is filled, from a spatial sample (as SHARDS does: Waldspurger et al., FAST 2015): only the
 * names whose hash falls in one RATE-th of the hash space are followed, in a shadow set of
 * CAPACITY / RATE names run by the cache's own policy (fill, then start over at most once every
 * refillMillis). The shadow's hit rate over WINDOW sampled lookups estimates the full cache's;
 * until the first window closes the cache is judged not worth keeping. A sample of a few names
 * may hold none of them (three service accounts: none sampled five times in six), so beside it
 * the last HOT names kept are followed exactly, one lookup and one name kept in HOT_EVERY (a
 * count, not a hash: a few names that bind again and again are all in it soon): when they answer
 * a quarter of the lookups looked at over a window, the cache is kept too. Once kept, the cache is
 * judged by its own answers, which costs nothing a lookup (the sample hashes every name): let go
 * when it answers less than half the share it had to show (one lookup in eight), over any window
 * after the one in which it fills (hysteresis, so that a cache near the line is not made and
 * dropped over and over).
 *
 *   not kept: names ──hash──► 1 in RATE ──► shadow ──► hits / lookups ≥ MIN_HIT_RATE ──► kept
 *             names ──► the last HOT kept ──► hits / lookups ≥ MIN_HIT_RATE ──────────────► kept
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
/** Lookups a kept cache, and the HOT names, are judged over: as many as a sampled window's. */
const KEPT_WINDOW = WINDOW * RATE;
/** Names followed exactly while the cache is not kept... */
const HOT = 64;
/** ...one lookup and one name kept in this many; a window is KEPT_WINDOW / HOT_EVERY of them. */
const HOT_EVERY = 8;

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
  private readonly hot = new Set<string>();
  private hotLookups = 0;
  private hotHits = 0;
  private hotTurn = 0;
  private hotKeptTurn = 0;

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

  /** A name the cache would keep now (the shadow's and the hot names', while the cache is not kept). */
  kept(name: string): void {
    if (this.worth) return;
    this.hotKeptTurn = (this.hotKeptTurn + 1) % HOT_EVERY;
    if (this.hotKeptTurn === 0 && !this.hot.has(name)) {
      if (this.hot.size >= HOT) this.hot.clear();
      this.hot.add(name);
    }
    if (!sampled(name) || this.shadow.has(name)) return;
    if (this.shadow.size >= this.shadowLimit) {
      if (Date.now() - this.filledAt < this.refillMillis) return;
      this.shadow.clear();
    }
    this.shadow.add(name);
    if (this.shadow.size === this.shadowLimit) this.filledAt = Date.now();
  }

  private lookedSampled(name: string): boolean {
    if (this.lookedHot(name)) return this.keep();
    if (!sampled(name)) return false;
    this.lookups += 1;
    if (this.shadow.has(name)) this.hits += 1;
    if (this.lookups < WINDOW) return false;
    if (this.hits >= this.lookups * MIN_HIT_RATE) return this.keep();
    this.restartWindow();
    return false;
  }

  /** Counts one lookup in HOT_EVERY against the hot names; true when a window of them closes answered often enough. */
  private lookedHot(name: string): boolean {
    this.hotTurn = (this.hotTurn + 1) % HOT_EVERY;
    if (this.hotTurn !== 0) return false;
    this.hotLookups += 1;
    if (this.hot.has(name)) this.hotHits += 1;
    if (this.hotLookups < KEPT_WINDOW / HOT_EVERY) return false;
    const worth = this.hotHits >= this.hotLookups * MIN_HIT_RATE;
    this.restartHotWindow();
    return worth;
  }

  private keep(): true {
    this.worth = true;
    this.filling = true;
    this.restartWindow();
    return true;
  }

  private lookedKept(answered: boolean): boolean {
    this.lookups += 1;
    if (answered) this.hits += 1;
    if (this.lookups < KEPT_WINDOW) return true;
    this.worth = this.filling || this.hits >= this.lookups * DROP_HIT_RATE;
    this.filling = false;
    this.restartWindow();
    if (!this.worth) this.restartHotWindow();
    return this.worth;
  }

  private restartWindow(): void {
    this.lookups = 0;
    this.hits = 0;
  }

  private restartHotWindow(): void {
    this.hotLookups = 0;
    this.hotHits = 0;
  }
}
