/**
 * Turns on a serving thread for long work (a search testing its filter on many entries): the
 * work runs in slices of at most SLICE_MS, then waits for its next turn, so no search holds the
 * event loop and other connections' binds and searches are read and answered in between.
 *
 * Waiting work is queued per connection, and connections take turns round robin: one turn is
 * given per pass of the event loop (a setImmediate), to the first connection in line, which then
 * goes to the back of the line if it has more waiting. So a connection running 32 searches gets
 * the share of the thread one search would, and every other connection's I/O is polled between
 * two slices: a bind waits at most about one slice (plus the one entry being tested).
 */

/** The longest a piece of long work runs before it lets the event loop turn. */
const SLICE_MS = 5;

export class Scheduler {
  /** Waiting work per connection, the connection next in line first (a Map keeps insertion order). */
  private readonly waiting = new Map<number, Array<() => void>>();
  private scheduled = false;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** A slice that started at `startedAt` (performance.now()) is used up. */
  due(startedAt: number): boolean {
    return performance.now() - startedAt >= this.sliceMs;
  }

  /** Resolves at the connection's next turn. */
  turn(connection: number): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(connection);
      if (queue) queue.push(resolve);
      else this.waiting.set(connection, [resolve]);
      this.schedule();
    });
  }

  /** The connection closed: its waiting work resumes at once (and sees itself aborted). */
  drop(connection: number): void {
    const queue = this.waiting.get(connection);
    this.waiting.delete(connection);
    for (const resume of queue ?? []) resume();
  }

  /** Work waiting for a turn, over all connections (for tests). */
  get pending(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.giveTurn());
  }

  private giveTurn(): void {
    this.scheduled = false;
    const next = this.waiting.entries().next();
    if (next.done) return;
    const [connection, queue] = next.value;
    const resume = queue.shift()!;
    this.waiting.delete(connection);
    if (queue.length > 0) this.waiting.set(connection, queue);
    resume();
    if (this.waiting.size > 0) this.schedule();
  }
}
