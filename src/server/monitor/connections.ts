/**
 * The connections a serving thread has open, for cn=Connections: each describes itself on
 * demand (a plain record that can cross to another thread), so nothing is gathered until
 * cn=Monitor is read.
 */

/** One connection as cn=Monitor shows it (monitorConnection). */
export interface ConnectionRecord {
  readonly id: number;
  readonly thread: number;
  /** "IP=127.0.0.1:40000", as OpenLDAP writes monitorConnectionPeerAddress. */
  readonly peer: string;
  readonly local: string;
  /** ldap:// or ldaps:// URL of the listener that accepted it. */
  readonly listener: string;
  /** The bound DN as the client wrote it ('' anonymous), and normalized (for access checks). */
  readonly boundDn: string;
  readonly normalizedDn: string;
  readonly opsReceived: number;
  readonly opsExecuting: number;
  readonly opsPending: number;
  readonly opsCompleted: number;
  /** Milliseconds since the epoch. */
  readonly startTime: number;
  readonly activityTime: number;
}

export interface MonitoredConnection {
  describe(thread: number): ConnectionRecord;
}

/** This thread's open connections. */
export class ConnectionTable {
  private readonly open = new Set<MonitoredConnection>();

  add(connection: MonitoredConnection): void {
    this.open.add(connection);
  }

  remove(connection: MonitoredConnection): void {
    this.open.delete(connection);
  }

  get size(): number {
    return this.open.size;
  }

  describe(thread: number): ConnectionRecord[] {
    return [...this.open].map((connection) => connection.describe(thread));
  }
}
