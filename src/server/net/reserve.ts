/**
 * A connection let in on the admin's reserve (--reserved-connections): until a bind as the admin
 * succeeds it may send only a bind or StartTLS, and it is closed if that has not happened within
 * RESERVE_BIND_MS. Once the admin has bound it is an ordinary connection.
 */

/** A connection on the admin's reserve that has not bound within this long is closed. */
const RESERVE_BIND_MS = 10_000;

export const RESERVE_REFUSAL = 'the connection limit is reached; the last connections are kept for the administrator (--reserved-connections)';

export class ReserveHold {
  private timer: NodeJS.Timeout | undefined;

  /** `held`: let in on the reserve; `expire`: closes the connection when the time to bind is up. */
  constructor(private held: boolean, expire: () => void) {
    if (held) this.timer = setTimeout(expire, RESERVE_BIND_MS).unref();
  }

  /** Still on the reserve: only a bind or StartTLS may come. */
  get isHeld(): boolean {
    return this.held;
  }

  /** After a bind: false when the connection must close (on the reserve, and not bound as the admin). */
  afterBind(boundAsAdmin: boolean): boolean {
    if (this.held && !boundAsAdmin) return false;
    this.release();
    return true;
  }

  release(): void {
    this.held = false;
    clearTimeout(this.timer);
  }
}
