/** Ordered concurrency: work on up to N items at once, hand results on in input order. */

export type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then((value) => ({ ok: true, value }) as const, (error: unknown) => ({ ok: false, error }) as const);
}

/**
 * Applies `work` to each item with at most `concurrency` in flight and yields the outcomes in
 * the order the items came, so a slow item holds back later ones but never reorders them.
 */
export async function* orderedMap<T, R>(
  source: AsyncIterable<T>, work: (item: T) => Promise<R>, concurrency: number,
): AsyncGenerator<Settled<R>> {
  const inFlight: Promise<Settled<R>>[] = [];
  for await (const item of source) {
    inFlight.push(settle(work(item)));
    if (inFlight.length >= concurrency) yield await inFlight.shift()!;
  }
  while (inFlight.length > 0) yield await inFlight.shift()!;
}
