/**
 * Waiting for what a server does after it answered: its log lines (written asynchronously, and
 * relayed from serving threads), background writes. Polls every 25 ms.
 */

/** Waits (up to `ms`, 15 s by default) until `condition()` holds; false if it never did. */
export async function eventually(condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms;) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}
