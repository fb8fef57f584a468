/**
 * The memory budget of costly verifications. A memory-hard hash is a memory bomb when many
 * clients bind at once (32 x 64 MiB of Argon2 is 2 GiB), and more of them at a time than there
 * are cores cannot hash faster, so a verification (or an encoding) that takes memory is admitted
 * only while the memory in use stays within the budget, and waits its turn beyond it. One value
 * alone is always admitted (its cost is bounded by --max-hash-memory already).
 *
 * The budget is --hash-memory-budget MiB, or by default "auto": the hashing threads (one per
 * core) times the largest memory cost admitted so far. The count is shared by every serving
 * thread (a SharedArrayBuffer the registry recipe carries), in KiB:
 *
 *   slot 0  in use     KiB held by admitted verifications, over all threads
 *   slot 1  largest    the largest single cost admitted so far (auto budget's unit)
 *   slot 2  budget     KiB, or 0 for auto
 *   slot 3  releases   bumped on every release; waiters sleep on it (Atomics.waitAsync)
 *   slot 4  waiting    verifications waiting for room, over all threads
 *   slot 5  running    verifications admitted and not yet released
 *   slot 6  next       the ticket the next waiter takes
 *   slot 7  serving    the ticket whose turn it is
 *
 * Waiters are admitted in the order they came, over all threads: each takes a ticket, and only
 * the waiter holding the serving ticket may take room. A thread that admitted its own waiters
 * first kept the room while its queue lasted, and another thread's waited for that queue to empty
 * (under 32 connections of Argon2id binds, a serving thread's binds never finished). A thread
 * wakes the others only when the turn has passed to one of theirs.
 */
import { availableParallelism } from 'node:os';

const IN_USE = 0;
const LARGEST = 1;
const BUDGET = 2;
const RELEASES = 3;
const WAITING = 4;
const RUNNING = 5;
const NEXT = 6;
const SERVING = 7;
const SLOTS = 8;

/** Below this a hash is not memory-hard enough to count (SHA-crypt, PBKDF2 and bcrypt take a few KiB). */
export const COUNTED_KIB = 1024;

export interface BudgetState {
  readonly inUseKiB: number;
  readonly budgetKiB: number;
  readonly waiting: number;
  readonly running: number;
}

export class HashMemoryBudget {
  private readonly slots: Int32Array;
  /** This thread's waiters, in ticket order. */
  private readonly queue: { readonly ticket: number; readonly kib: number; readonly admit: () => void }[] = [];
  private watching = false;
  /** Told how long each verification that had to wait for room waited, in seconds (monitoring). */
  onWaited: (seconds: number) => void = () => {};

  /** `budgetMiB` 0 for auto; `hashingThreads` the cores by default. */
  static allocate(budgetMiB = 0, hashingThreads = availableParallelism()): HashMemoryBudget {
    const budget = new HashMemoryBudget(new SharedArrayBuffer(SLOTS * 4), hashingThreads);
    Atomics.store(budget.slots, BUDGET, budgetMiB * 1024);
    return budget;
  }

  constructor(readonly buffer: SharedArrayBuffer, readonly hashingThreads = availableParallelism()) {
    this.slots = new Int32Array(buffer);
  }

  /** Words for the start-up log line. */
  describe(): string {
    const budget = Atomics.load(this.slots, BUDGET);
    return budget > 0 ? `${budget / 1024} MiB (--hash-memory-budget)`
      : `auto: ${this.hashingThreads} hashing threads x the largest memory cost in use (--hash-memory-budget 0)`;
  }

  state(): BudgetState {
    return {
      inUseKiB: Atomics.load(this.slots, IN_USE), budgetKiB: this.budgetKiB(),
      waiting: Atomics.load(this.slots, WAITING), running: Atomics.load(this.slots, RUNNING),
    };
  }

  /** Runs `work` once `kib` fit the budget (at once below COUNTED_KIB). */
  async run<T>(kib: number, work: () => Promise<T>): Promise<T> {
    if (kib < COUNTED_KIB) return work();
    await this.admit(kib);
    try {
      return await work();
    } finally {
      this.release(kib);
    }
  }

  private budgetKiB(): number {
    const fixed = Atomics.load(this.slots, BUDGET);
    return fixed > 0 ? fixed : this.hashingThreads * Atomics.load(this.slots, LARGEST);
  }

  private admit(kib: number): Promise<void> {
    this.noteLargest(kib);
    if (Atomics.load(this.slots, WAITING) === 0 && this.tryTake(kib)) return Promise.resolve();
    Atomics.add(this.slots, WAITING, 1);
    const ticket = Atomics.add(this.slots, NEXT, 1);
    const queued = performance.now();
    return new Promise((resolve) => {
      this.queue.push({ ticket, kib, admit: () => {
        this.onWaited((performance.now() - queued) / 1000);
        resolve();
      } });
      this.serveQueue();
      this.watch();
    });
  }

  /** Takes `kib` if they fit (or nothing is in use); never more than the budget otherwise. */
  private tryTake(kib: number): boolean {
    for (;;) {
      const inUse = Atomics.load(this.slots, IN_USE);
      if (inUse > 0 && inUse + kib > this.budgetKiB()) return false;
      if (Atomics.compareExchange(this.slots, IN_USE, inUse, inUse + kib) === inUse) {
        Atomics.add(this.slots, RUNNING, 1);
        return true;
      }
    }
  }

  private release(kib: number): void {
    Atomics.sub(this.slots, IN_USE, kib);
    Atomics.sub(this.slots, RUNNING, 1);
    Atomics.add(this.slots, RELEASES, 1);
    if (!this.serveQueue()) this.wakeOthers();
  }

  /** Wakes the other threads' waiters when one of them may go: some wait, and the turn is not this thread's. */
  private wakeOthers(): void {
    if (Atomics.load(this.slots, WAITING) === this.queue.length) return;
    if (this.queue.length > 0 && this.queue[0]!.ticket === Atomics.load(this.slots, SERVING)) return;
    Atomics.add(this.slots, RELEASES, 1);
    Atomics.notify(this.slots, RELEASES);
  }

  private noteLargest(kib: number): void {
    for (let largest = Atomics.load(this.slots, LARGEST); kib > largest; largest = Atomics.load(this.slots, LARGEST)) {
      if (Atomics.compareExchange(this.slots, LARGEST, largest, kib) === largest) return;
    }
  }

  /** Admits this thread's waiters while the turn is theirs and they fit, then wakes the others if the turn passed to them; whether any was admitted. */
  private serveQueue(): boolean {
    let admitted = false;
    while (this.queue.length > 0 && this.queue[0]!.ticket === Atomics.load(this.slots, SERVING) && this.tryTake(this.queue[0]!.kib)) {
      Atomics.add(this.slots, SERVING, 1);
      Atomics.sub(this.slots, WAITING, 1);
      this.queue.shift()!.admit();
      admitted = true;
    }
    if (admitted) this.wakeOthers();
    return admitted;
  }

  /** While this thread has waiters, sleeps on the release count (another thread's release wakes it too). */
  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    const loop = async (): Promise<void> => {
      while (this.queue.length > 0) {
        const seen = Atomics.load(this.slots, RELEASES);
        this.serveQueue();
        if (this.queue.length === 0) break;
        const wait = Atomics.waitAsync(this.slots, RELEASES, seen, 1000);
        if (wait.async) await wait.value;
      }
      this.watching = false;
    };
    void loop();
  }
}
