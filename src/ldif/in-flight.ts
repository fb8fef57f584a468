/**
 * Parts of the file out with the worker threads, stored in file order. Up to `limit` bytes of
 * them are out at once, so the workers go on planning while the main thread is busy (writing a
 * sorted run takes about half a second) without the file's planned outcomes piling up in memory.
 */
export class PartsInFlight<T> {
  private readonly queue: { readonly result: Promise<T>; readonly bytes: number }[] = [];
  private bytes = 0;

  constructor(private readonly limit: number, private readonly store: (result: T) => Promise<void>) {}

  /** Hands over a part's result to come; stores the oldest ones while more than `limit` bytes are out. */
  async add(result: Promise<T>, bytes: number): Promise<void> {
    result.catch(() => undefined); // awaited in turn; a failure is reported there
    this.queue.push({ result, bytes });
    this.bytes += bytes;
    while (this.bytes > this.limit) await this.storeOldest();
  }

  /** Stores every part still out, in order. */
  async drain(): Promise<void> {
    while (this.queue.length > 0) await this.storeOldest();
  }

  get outstanding(): number {
    return this.bytes;
  }

  private async storeOldest(): Promise<void> {
    const oldest = this.queue.shift()!;
    this.bytes -= oldest.bytes;
    await this.store(await oldest.result);
  }
}
