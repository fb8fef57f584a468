/**
 * Lockout across the nodes of a PostgreSQL store: each failed bind is recorded in
 * leveldap_failures (account, node, time in ms by the failing node's clock), and the node learns
 * the other nodes' failures of that account inside the window in the same round trip, so the
 * account locks when the failures of all nodes together reach --max-failures (lockout.ts). A
 * success forgets the account's rows. Rows older than the window go as the account fails again.
 *
 * PostgreSQL unreachable: the node counts its own failures only (logged), as one server does.
 */
import type pg from 'pg';
import type { SharedFailures } from '../system-of-record.js';
import { FAILURES } from './schema.js';

export interface FailuresLog {
  warn(details: object, message: string): void;
}

export class PostgresFailures implements SharedFailures {
  constructor(private readonly pool: pg.Pool, private readonly node: string, private readonly log: FailuresLog) {}

  async failed(account: string, at: number, since: number): Promise<number[]> {
    try {
      const { rows } = await this.pool.query<{ at_ms: string }>(
        `WITH pruned AS (DELETE FROM ${FAILURES} WHERE account = $1 AND at_ms <= $3),
              added AS (INSERT INTO ${FAILURES} (account, node, at_ms) VALUES ($1, $2, $4))
         SELECT at_ms FROM ${FAILURES} WHERE account = $1 AND node <> $2 AND at_ms > $3`,
        [account, this.node, since, at],
      );
      return rows.map((row) => Number(row.at_ms));
    } catch (error) {
      this.log.warn({ dn: account, err: (error as Error).message }, 'could not share a failed bind through PostgreSQL: this node counts its own');
      return [];
    }
  }

  cleared(account: string): void {
    this.pool.query(`DELETE FROM ${FAILURES} WHERE account = $1`, [account]).catch((error: Error) => {
      this.log.warn({ dn: account, err: error.message }, 'could not forget the failed binds of an account in PostgreSQL');
    });
  }
}
