/**
 * The server's counters (cn=Monitor, /metrics): one slice of a SharedArrayBuffer per serving
 * thread, of plain float64 slots (exact to 2^53). A thread writes only its own slice, with plain
 * increments (no Atomics, no allocation), so counting costs a bind a few array writes; a reader
 * on any thread sums the slices (`StatsReader`), seeing each a moment late at worst.
 *
 * The layout (`statsLayout`) is plain data worked out once from the scheme names the registry
 * holds, the same in every thread: fixed slots, then per operation kind its initiated and
 * completed counts and its results by code, then per scheme and bind result the binds and their
 * latency histogram (BIND_BUCKETS, in seconds, non-cumulative counts plus a sum).
 */

/** Operation kinds, in OpenLDAP's order (cn=Operations): the protocol's request kinds. */
export const OP_KINDS = ['bind', 'unbind', 'search', 'compare', 'modify', 'modifyDn', 'add', 'delete', 'abandon', 'extended'] as const;
export type OpKind = (typeof OP_KINDS)[number];

/** Result codes counted one by one (0 .. CODES - 2); any above share the last slot. */
export const CODES = 128;

/** A bind's outcome: bound, refused as invalidCredentials (49), or any other answer. */
export const BIND_RESULTS = ['success', 'invalid', 'other'] as const;
export type BindResult = (typeof BIND_RESULTS)[number];

/** The "scheme" of binds that verified no stored value (anonymous, refused early, unknown DN). */
export const NO_SCHEME = 'none';

/** Bind latency bucket bounds, seconds (Prometheus' `le`); a last bucket takes the rest (+Inf). */
export const BIND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

/** Single slots of each thread's slice. Gauges (current, sampled) are marked so. */
export const SLOT = {
  connectionsAccepted: 0,
  /** Gauge: connections open on this thread now. */
  connectionsCurrent: 1,
  connectionsRefusedCap: 2,
  connectionsRefusedAddress: 3,
  bytesSent: 4,
  pdusSent: 5,
  entriesSent: 6,
  bytesReceived: 7,
  pdusReceived: 8,
  bindCacheHits: 9,
  bindCacheMisses: 10,
  lockouts: 11,
  /** Gauges sampled about once a second by the thread (thread-monitor.ts): event-loop delay (seconds) and heap. */
  loopDelayMean: 12,
  loopDelayP99: 13,
  loopDelayMax: 14,
  heapUsedBytes: 15,
  /** Gauge: operations in progress on this thread. */
  operationsRunning: 16,
  /** Verifications that waited for the hash memory budget, and the seconds they waited. */
  hashWaits: 17,
  hashWaitSeconds: 18,
  /** The entry cache's hits and misses (the thread's store counts them; the sampler copies them about once a second). */
  entryCacheHits: 19,
  entryCacheMisses: 20,
  /** Gauge: the entry cache's size in bytes, 0 when off. */
  entryCacheBytes: 21,
  /** The password table's hits and misses (each thread's lookups, copied about once a second). */
  passwordTableHits: 22,
  passwordTableMisses: 23,
  /** Gauge: the bytes of records the password table holds (one table for every thread: counted by thread 0 only). */
  passwordTableBytes: 24,
  /** The equality table's hits and misses (each thread's lookups that its own cache did not answer, copied about once a second). */
  equalityTableHits: 25,
  equalityTableMisses: 26,
  /** Gauge: the bytes of records the equality table holds (counted by thread 0 only). */
  equalityTableBytes: 27,
  /** The record table's hits and misses (each thread's reads of a search's records, copied about once a second). */
  recordTableHits: 28,
  recordTableMisses: 29,
  /** Gauge: the bytes of records the record table holds (counted by thread 0 only). */
  recordTableBytes: 30,
} as const;
const FIXED_SLOTS = 31;

export interface StatsLayout {
  readonly schemes: readonly string[];
  /** Slots per thread. */
  readonly size: number;
  readonly initiated: number;
  readonly completed: number;
  readonly results: number;
  readonly binds: number;
  readonly latency: number;
  readonly latencySum: number;
}

const BUCKET_SLOTS = BIND_BUCKETS.length + 1;

/** The layout for these scheme names (NO_SCHEME is added first). */
export function statsLayout(schemeNames: readonly string[]): StatsLayout {
  const schemes = [NO_SCHEME, ...schemeNames.filter((name) => name !== NO_SCHEME)];
  const kinds = OP_KINDS.length;
  const pairs = schemes.length * BIND_RESULTS.length;
  const initiated = FIXED_SLOTS;
  const completed = initiated + kinds;
  const results = completed + kinds;
  const binds = results + kinds * CODES;
  const latency = binds + pairs;
  const latencySum = latency + pairs * BUCKET_SLOTS;
  return { schemes, initiated, completed, results, binds, latency, latencySum, size: latencySum + pairs };
}

/** The shared buffer for `threads` slices of this layout. */
export function allocateStats(layout: StatsLayout, threads: number): SharedArrayBuffer {
  return new SharedArrayBuffer(layout.size * threads * Float64Array.BYTES_PER_ELEMENT);
}

const KIND_INDEX: Readonly<Record<string, number>> = Object.fromEntries(OP_KINDS.map((kind, index) => [kind, index]));
const RESULT_INDEX: Readonly<Record<BindResult, number>> = { success: 0, invalid: 1, other: 2 };

export const kindIndex = (kind: string): number => KIND_INDEX[kind] ?? OP_KINDS.length - 1;
const codeSlot = (code: number): number => (code >= 0 && code < CODES - 1 ? code : CODES - 1);

/** The bucket a latency (seconds) falls in. */
export function bucketOf(seconds: number): number {
  let bucket = 0;
  while (bucket < BIND_BUCKETS.length && seconds > BIND_BUCKETS[bucket]!) bucket += 1;
  return bucket;
}

/** One thread's counters: its slice, written with plain increments. */
export class ThreadStats {
  readonly slots: Float64Array;
  private readonly schemeIndex: Map<string, number>;

  constructor(buffer: SharedArrayBuffer, readonly layout: StatsLayout, thread: number) {
    this.slots = new Float64Array(buffer, thread * layout.size * Float64Array.BYTES_PER_ELEMENT, layout.size);
    this.schemeIndex = new Map(layout.schemes.flatMap((name, index) => [[name, index], [name.toUpperCase(), index]]));
  }

  add(slot: number, amount = 1): void {
    this.slots[slot]! += amount;
  }

  set(slot: number, value: number): void {
    this.slots[slot] = value;
  }

  initiated(kind: number): void {
    this.slots[this.layout.initiated + kind]! += 1;
    this.slots[SLOT.operationsRunning]! += 1;
  }

  completed(kind: number, code: number): void {
    const { layout, slots } = this;
    slots[layout.completed + kind]! += 1;
    slots[layout.results + kind * CODES + codeSlot(code)]! += 1;
    slots[SLOT.operationsRunning]! -= 1;
  }

  /** An operation that gets no response by design (Unbind, Abandon): initiated and completed at once. */
  unanswered(kind: number): void {
    this.slots[this.layout.initiated + kind]! += 1;
    this.slots[this.layout.completed + kind]! += 1;
  }

  /** An operation that ended without a response (abandoned, the client left). */
  ended(): void {
    this.slots[SLOT.operationsRunning]! -= 1;
  }

  sent(bytes: number, entries = 0): void {
    const { slots } = this;
    slots[SLOT.bytesSent]! += bytes;
    slots[SLOT.pdusSent]! += 1;
    slots[SLOT.entriesSent]! += entries;
  }

  received(bytes: number): void {
    this.slots[SLOT.bytesReceived]! += bytes;
    this.slots[SLOT.pdusReceived]! += 1;
  }

  /** The index of a scheme name (as the registry names it, or in any case; NO_SCHEME's for undefined or a name not known at start). */
  schemeOf(name: string | undefined): number {
    if (name === undefined) return 0;
    return this.schemeIndex.get(name) ?? this.schemeIndex.get(name.toUpperCase()) ?? 0;
  }

  /** One bind answered: by scheme and result, and its latency (seconds) in the histogram. */
  bind(scheme: number, result: BindResult, seconds: number): void {
    const { layout, slots } = this;
    const pair = scheme * BIND_RESULTS.length + RESULT_INDEX[result];
    slots[layout.binds + pair]! += 1;
    slots[layout.latency + pair * BUCKET_SLOTS + bucketOf(seconds)]! += 1;
    slots[layout.latencySum + pair]! += seconds;
  }
}

/** Sums of the slices (or one thread's), read from any thread. */
export class StatsReader {
  private readonly all: Float64Array;

  constructor(buffer: SharedArrayBuffer, readonly layout: StatsLayout, readonly threads: number) {
    this.all = new Float64Array(buffer, 0, layout.size * threads);
  }

  /** A slot summed over the threads, or of one thread. */
  value(slot: number, thread?: number): number {
    const { size } = this.layout;
    if (thread !== undefined) return this.all[thread * size + slot]!;
    let sum = 0;
    for (let t = 0; t < this.threads; t += 1) sum += this.all[t * size + slot]!;
    return sum;
  }

  initiated(kind: number): number {
    return this.value(this.layout.initiated + kind);
  }

  completed(kind: number): number {
    return this.value(this.layout.completed + kind);
  }

  /** Completed operations of a kind with this result code (CODES - 1: every code above). */
  results(kind: number, code: number): number {
    return this.value(this.layout.results + kind * CODES + codeSlot(code));
  }

  binds(scheme: number, result: BindResult): number {
    return this.value(this.layout.binds + scheme * BIND_RESULTS.length + RESULT_INDEX[result]);
  }

  /** A bind histogram: counts per bucket (not cumulative; the last is beyond the last bound) and the sum of seconds. */
  latency(scheme: number, result: BindResult): { readonly buckets: number[]; readonly sum: number; readonly count: number } {
    const pair = scheme * BIND_RESULTS.length + RESULT_INDEX[result];
    const buckets = Array.from({ length: BUCKET_SLOTS }, (_, bucket) => this.value(this.layout.latency + pair * BUCKET_SLOTS + bucket));
    return { buckets, sum: this.value(this.layout.latencySum + pair), count: this.binds(scheme, result) };
  }
}
