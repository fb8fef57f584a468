/** One writer at a time: a read-check-write sequence runs without another write in between. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(critical: () => Promise<T>): Promise<T> {
    const result = this.tail.then(critical);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
