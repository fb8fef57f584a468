/**
 * A connection's operations in progress by message ID, in slots that are reused. A Map would do,
 * but V8 gives a Map a new, smaller table whenever its last entry is deleted, allocated in the
 * generation the old one lived in: a connection's session lives long, so each operation on a
 * connection that runs one at a time left a table of garbage in the old generation, which only a
 * full collection reclaims (docs/performance.md, "A table of garbage per operation"). At most
 * maxOutstanding operations run on a connection at once, so a scan of the slots is short.
 */
export class OperationSlots<T> {
  private readonly ids: number[] = [];
  private readonly values: (T | undefined)[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Puts `value` under `id`, in place of any value under it. */
  set(id: number, value: T): void {
    const held = this.slotOf(id);
    if (held !== -1) {
      this.values[held] = value;
      return;
    }
    const free = this.values.indexOf(undefined);
    if (free === -1) {
      this.ids.push(id);
      this.values.push(value);
    } else {
      this.ids[free] = id;
      this.values[free] = value;
    }
    this.count += 1;
  }

  get(id: number): T | undefined {
    const slot = this.slotOf(id);
    return slot === -1 ? undefined : this.values[slot];
  }

  has(id: number): boolean {
    return this.slotOf(id) !== -1;
  }

  delete(id: number): void {
    const slot = this.slotOf(id);
    if (slot === -1) return;
    this.values[slot] = undefined;
    this.count -= 1;
  }

  /** Every value held, then none. */
  takeAll(): T[] {
    const taken = this.values.filter((value): value is T => value !== undefined);
    this.values.fill(undefined);
    this.count = 0;
    return taken;
  }

  private slotOf(id: number): number {
    const { ids, values } = this;
    for (let slot = 0; slot < ids.length; slot += 1) if (ids[slot] === id && values[slot] !== undefined) return slot;
    return -1;
  }
}
