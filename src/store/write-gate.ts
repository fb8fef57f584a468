/**
 * The write gate: which database writes may be acknowledged. LevelDB 1.20 does not stop after a
 * write to its log fails (ENOSPC, EIO): the record is left half written, later records follow it
 * in the same file and succeed, and on the next open the log is read only up to the broken record,
 * so every write after it is lost (docs/durability.md). So after a failed write the gate closes:
 * no write is admitted until the database has been proven durable again (recovery.ts).
 *
 * Writes admitted before the failure may still be in LevelDB, behind the broken record. Each
 * admitted write takes a ticket, in the same synchronous run as it is handed to LevelDB, so
 * tickets follow the order in which writes reach LevelDB's queue; a write that succeeded is
 * acknowledged once every write with an earlier ticket has finished (their outcome is then known,
 * whichever thread made them) and only if no write failed since it was admitted. A write admitted
 * later than it but queued in LevelDB before it is not waited for: that takes a thread being
 * preempted between its ticket and LevelDB's queue (microseconds); docs/durability.md says what
 * is left open then, and why waiting for every write in flight was not chosen (measured).
 *
 * The state is in shared memory, so with `serve --threads` every thread sees one gate: a write
 * failing in one thread closes it for all of them.
 */

/** Header cells, then the owner of each ring slot, then the ring of finished tickets. */
const CELL = {
  /** OPEN or SUSPENDED. */
  state: 0,
  /** Writes that failed since start. */
  failures: 1,
  /** The next ticket. */
  next: 2,
  /** Every ticket before this one has finished. */
  low: 3,
  /** Writes refused while suspended. */
  refused: 4,
  /** Writes finished (written, failed or withdrawn) since start: what readers' caches are stamped with. */
  settled: 5,
} as const;
const HEADER = 8;
/** Writes in flight at once, at most (more wait for a slot). */
export const MAX_IN_FLIGHT = 1 << 12;
const RING = MAX_IN_FLIGHT;
const MASK = RING - 1;
const OPEN = 0;
const SUSPENDED = 1;
/** admit(): every ring slot holds a write in flight. */
export const FULL = 'full';
const KEEP_ALIVE_MS = 50;

/** Whether ticket a comes at or after ticket b (tickets wrap around at 2^32). */
const atOrAfter = (a: number, b: number): boolean => ((a - b) | 0) >= 0;

/** A write admitted through the gate. */
export interface Pass {
  readonly ticket: number;
  /** The failure count when it was admitted. */
  readonly failures: number;
}

export class WriteGate {
  private readonly cells: Int32Array;
  private readonly owners: Int32Array;
  private readonly ring: Int32Array;
  /** This holder's writes waiting for `low` to move. */
  private readonly waiting = new Set<() => void>();
  private keepAlive: NodeJS.Timeout | undefined;

  /** `owner` numbers this thread from 1 (as SharedSlots does), so a dead thread's writes can be abandoned. */
  constructor(readonly buffer: SharedArrayBuffer = WriteGate.allocate(), private readonly owner = 1) {
    this.cells = new Int32Array(buffer, 0, HEADER);
    this.owners = new Int32Array(buffer, HEADER * 4, RING);
    this.ring = new Int32Array(buffer, (HEADER + RING) * 4, RING);
  }

  /** Shared memory for one gate, open, no ticket taken. */
  static allocate(): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer((HEADER + 2 * RING) * Int32Array.BYTES_PER_ELEMENT);
    const ring = new Int32Array(buffer, (HEADER + RING) * 4, RING);
    for (let slot = 0; slot < RING; slot += 1) ring[slot] = slot - RING; // "the ticket before slot's first finished"
    return buffer;
  }

  get open(): boolean {
    return Atomics.load(this.cells, CELL.state) === OPEN;
  }

  /**
   * Writes finished since start, in every thread. It moves as each write's batch settles, before
   * the write is acknowledged: an answer read from the database while it held still is still the
   * database's answer (store.ts's cache of equality lookups).
   */
  get settled(): number {
    return Atomics.load(this.cells, CELL.settled);
  }

  /** Writes refused while the gate was closed, since start. */
  get refused(): number {
    return Atomics.load(this.cells, CELL.refused);
  }

  /**
   * A pass for a write to hand to LevelDB at once (in the same synchronous run, so the tickets
   * keep LevelDB's order), undefined (counted as refused) while the gate is closed, or FULL when
   * MAX_IN_FLIGHT writes are in flight (await room() and ask again). The failure count is read
   * before the state, and a failure closes the gate before it counts, so a write admitted after
   * a failure always sees one of them.
   */
  admit(): Pass | undefined | typeof FULL {
    const failures = Atomics.load(this.cells, CELL.failures);
    if (!this.open) {
      Atomics.add(this.cells, CELL.refused, 1);
      return undefined;
    }
    const ticket = Atomics.load(this.cells, CELL.next);
    if (!atOrAfter(this.low + RING, ticket + 1)) return FULL;
    if (Atomics.compareExchange(this.cells, CELL.next, ticket, (ticket + 1) | 0) !== ticket) return this.admit();
    Atomics.store(this.owners, ticket & MASK, this.owner);
    return { ticket, failures };
  }

  /** Resolves once the oldest write in flight has finished (after admit() said FULL). */
  async room(): Promise<void> {
    const seen = this.low;
    while (this.low === seen) await this.lowChange(seen);
  }

  /** The write failed: closes the gate (true if this call closed it) and finishes the ticket. */
  failed(pass: Pass): boolean {
    const closed = Atomics.compareExchange(this.cells, CELL.state, OPEN, SUSPENDED) === OPEN;
    Atomics.add(this.cells, CELL.failures, 1);
    this.finish(pass.ticket);
    return closed;
  }

  /**
   * The write succeeded: resolves, once every write admitted before it has finished, whether it
   * is durable (no write failed since it was admitted).
   */
  async succeeded(pass: Pass): Promise<boolean> {
    this.finish(pass.ticket);
    const after = (pass.ticket + 1) | 0;
    for (let low = this.low; !atOrAfter(low, after); low = this.low) await this.lowChange(low);
    return Atomics.load(this.cells, CELL.failures) === pass.failures;
  }

  /** The write never reached LevelDB (the database was not open): the ticket finishes, nothing else. */
  withdrawn(pass: Pass): void {
    this.finish(pass.ticket);
  }

  /** Opens the gate again (the database was proven durable). */
  reopen(): void {
    Atomics.store(this.cells, CELL.state, OPEN);
  }

  /**
   * A thread that died with writes in flight (owner as given to its gate): they count as failed,
   * since whether LevelDB wrote them is unknown, and finish, so other threads' writes do not wait
   * for them forever. Returns how many there were.
   */
  abandon(owner: number): number {
    let abandoned = 0;
    const next = Atomics.load(this.cells, CELL.next);
    for (let ticket = Atomics.load(this.cells, CELL.low); !atOrAfter(ticket, next); ticket = (ticket + 1) | 0) {
      if (Atomics.load(this.owners, ticket & MASK) !== owner || Atomics.load(this.ring, ticket & MASK) === ticket) continue;
      this.failed({ ticket, failures: 0 });
      abandoned += 1;
    }
    return abandoned;
  }

  /** Marks the ticket finished and moves `low` past every finished ticket. */
  private finish(ticket: number): void {
    Atomics.add(this.cells, CELL.settled, 1);
    Atomics.store(this.ring, ticket & MASK, ticket);
    let low = Atomics.load(this.cells, CELL.low);
    while (Atomics.load(this.ring, low & MASK) === low) {
      const seen = Atomics.compareExchange(this.cells, CELL.low, low, (low + 1) | 0);
      low = seen === low ? (low + 1) | 0 : seen;
    }
    Atomics.notify(this.cells, CELL.low);
    if (this.waiting.size > 0) this.wakeAll();
  }

  private get low(): number {
    return Atomics.load(this.cells, CELL.low);
  }

  /**
   * Resolves once `low` may have moved from `seen`: woken by this holder's own finish directly,
   * by another thread's through Atomics. A pending waitAsync does not keep an event loop alive,
   * so while writes wait a timer does (and wakes them every KEEP_ALIVE_MS to look again): a
   * thread whose writes all wait for another thread's must not end.
   */
  private lowChange(seen: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.waiting.delete(wake);
        if (this.waiting.size === 0) this.stopKeepingAlive();
        resolve();
      };
      this.waiting.add(wake);
      this.keepAlive ??= setInterval(() => this.wakeAll(), KEEP_ALIVE_MS);
      // With a timeout: a wait woken by the keep-alive instead must not stay pending behind it.
      const wait = Atomics.waitAsync(this.cells, CELL.low, seen, KEEP_ALIVE_MS);
      if (wait.async) void wait.value.then(wake);
      else wake();
    });
  }

  private wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }

  private stopKeepingAlive(): void {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
