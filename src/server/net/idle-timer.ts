/**
 * A connection's idle timer. It counts from the last complete LDAP message the client sent, or
 * the last operation that ended: bytes that make no message (a frame trickled one byte at a time)
 * do not keep a connection alive, as a socket's own inactivity timeout would. When it fires with
 * operations still in progress it starts over.
 */
export class IdleTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly fire: () => void) {}

  /** Starts counting `ms` afresh (0: no timeout). */
  set(ms: number): void {
    clearTimeout(this.timer);
    this.timer = ms > 0 ? setTimeout(this.fire, ms).unref() : undefined;
  }

  /** Activity: counts the same duration afresh. */
  touch(): void {
    this.timer?.refresh();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** A session's idle timeout in ms: --idle-timeout, or --anonymous-idle-timeout (the shorter) while it is not bound to a DN (0: none). */
export function idleTimeoutMs(limits: { readonly idleTimeout: number; readonly anonymousIdleTimeout: number }, anonymous: boolean): number {
  const { idleTimeout, anonymousIdleTimeout } = limits;
  const shorter = anonymousIdleTimeout > 0 && (idleTimeout === 0 || anonymousIdleTimeout < idleTimeout) ? anonymousIdleTimeout : idleTimeout;
  return (anonymous ? shorter : idleTimeout) * 1000;
}
