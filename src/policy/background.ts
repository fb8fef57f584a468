/**
 * Writes the server makes after it has answered (a password re-encoded after a bind, lockout
 * records cleared): each starts on a later turn of the event loop, so it never delays the
 * response; a failure is logged, never thrown; shutdown waits for those still running.
 */
import type { Logger } from 'pino';

export class BackgroundTasks {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly log: Logger) {}

  /** Runs `task` after the current operation has answered; `what` names it in an error line. */
  run(what: string, task: () => Promise<void>): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch((error: unknown) => this.log.error({ err: error }, `${what} failed`))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once no task is running (tasks started meanwhile included). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
