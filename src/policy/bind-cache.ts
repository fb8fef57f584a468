/**
 * The verified-bind cache (off unless given a TTL): after a costly scheme has verified a
 * password, it keeps HMAC-SHA256(key, DN, password, stored value) under a key drawn at random
 * when the process starts, with an expiry, so the same bind within the TTL costs one HMAC
 * instead of thousands of PBKDF2 rounds. It holds MACs, never passwords; a new stored value (a
 * password change, a re-encoding) gives another MAC, so a change invalidates it by construction.
 * Bounded: when full, the oldest entry goes.
 */
import { createHmac, randomBytes } from 'node:crypto';

export class VerifiedBindCache {
  private readonly key = randomBytes(32);
  /** MAC -> expiry (performance.now() milliseconds), oldest first. */
  private readonly entries = new Map<string, number>();
  /** Binds answered from the cache since start. */
  hits = 0;

  constructor(
    private readonly ttlSeconds: number,
    private readonly maxEntries: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.ttlSeconds > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Was this password verified against this stored value of this DN within the TTL? */
  has(normalizedDn: string, password: Uint8Array, stored: string): boolean {
    const mac = this.mac(normalizedDn, password, stored);
    const expiry = this.entries.get(mac);
    if (expiry === undefined) return false;
    if (expiry <= this.now()) {
      this.entries.delete(mac);
      return false;
    }
    this.hits += 1;
    return true;
  }

  /** Remembers a verified bind (call only after the scheme said "match"). */
  remember(normalizedDn: string, password: Uint8Array, stored: string): void {
    if (!this.enabled) return;
    const mac = this.mac(normalizedDn, password, stored);
    this.entries.delete(mac);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(mac, this.now() + this.ttlSeconds * 1000);
  }

  /** Each field is preceded by its length, so no two different triples feed the HMAC the same bytes. */
  private mac(normalizedDn: string, password: Uint8Array, stored: string): string {
    const hmac = createHmac('sha256', this.key);
    for (const field of [Buffer.from(normalizedDn, 'utf8'), password, Buffer.from(stored, 'utf8')]) {
      const length = Buffer.allocUnsafe(4);
      length.writeUInt32BE(field.byteLength);
      hmac.update(length).update(field);
    }
    return hmac.digest('base64');
  }
}
