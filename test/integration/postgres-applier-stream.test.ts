/**
 * A node's stream from PostgreSQL (src/store/postgres/applier.ts) against a real cluster: the
 * position it acknowledges is exactly the one its copy holds, so a transaction whose commit record
 * starts where the last applied one ends still comes when the stream starts again (acknowledged
 * one byte too far, PostgreSQL skipped it for good); and a node that is caught up lets PostgreSQL
 * drop WAL the directory has no part in (its slot kept all of it until the directory's next write);
 * and the position stored in the copy never goes back (the sync of every second rewrote it, older,
 * after a batch that had stored a newer one).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { postgresUnavailable, startPostgres, type PostgresCluster } from '../../src/harness/postgres.js';
import { DirectoryStore } from '../../src/store/index.js';
import { metaKey } from '../../src/store/keys.js';
import { parseLsn } from '../../src/store/postgres/lsn.js';
import { Applier, type ApplierLog, type LocalCopy } from '../../src/store/postgres/applier.js';
import { ensureSchema } from '../../src/store/postgres/schema.js';
import { eventually } from '../helpers/eventually.js';
import { tempDir } from '../helpers/store.js';

const skip = postgresUnavailable() ?? false;
const quiet: ApplierLog = { info: () => {}, warn: () => {}, error: () => {} };

/** A connection to the cluster, ended after `use`. */
async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The slot's confirmed position, as PostgreSQL keeps it. */
const confirmed = (client: pg.Client, slot: string): Promise<string | undefined> =>
  client.query<{ lsn: string }>('SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1', [slot]).then((result) => result.rows[0]?.lsn);

interface Node {
  readonly store: DirectoryStore;
  readonly applier: Applier;
  /** A connection of the test's own to the cluster. */
  readonly admin: pg.Client;
}

describe('a node\'s stream from PostgreSQL (applier.ts)', { skip }, () => {
  let cluster: PostgresCluster;

  /**
   * A node on a fresh local copy (seen through `copyOf` when given) streaming from slot `slot`,
   * and an admin connection, for `body`; everything stopped and removed after it.
   */
  async function withNode(slot: string, body: (node: Node) => Promise<void>, copyOf?: (store: DirectoryStore) => LocalCopy): Promise<void> {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    const applier = new Applier(copyOf ? copyOf(store) : store, cluster.url, slot, quiet);
    const admin = new pg.Client({ connectionString: cluster.url });
    try {
      await applier.start();
      await admin.connect();
      await body({ store, applier, admin });
    } finally {
      await applier.stop();
      await admin.end();
      await store.close();
      await dir.remove();
    }
  }

  before(async () => {
    cluster = await startPostgres();
    await withClient(cluster.url, ensureSchema);
  });
  after(async () => { await cluster?.destroy(); });

  test('the position acknowledged is the copy\'s: a commit right after the last one applied comes after the stream breaks', async () => {
    await withNode('leveldap_next', async ({ store, applier, admin }) => {
      const [first, second] = [new pg.Client({ connectionString: cluster.url }), new pg.Client({ connectionString: cluster.url })];
      await Promise.all([first.connect(), second.connect()]);
      try {
        // The second transaction writes first and commits last: its commit record starts where the first's ends.
        await second.query("BEGIN; INSERT INTO leveldap_settings VALUES ('second', '2')");
        await first.query("BEGIN; INSERT INTO leveldap_settings VALUES ('first', '1'); COMMIT");
        assert.ok(await eventually(async () => (await store.getSetting('first')) === '1'), 'the first transaction applied');
        assert.ok(await eventually(async () => (await confirmed(admin, 'leveldap_next')) === applier.applied, 5000),
          `the slot confirms the copy's position ${applier.applied} (it confirms ${await confirmed(admin, 'leveldap_next')})`);
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'walsender'");
        await second.query('COMMIT');
        await admin.query("INSERT INTO leveldap_settings VALUES ('third', '3')");
        assert.ok(await eventually(async () => (await store.getSetting('third')) === '3', 10_000), 'the stream resumed');
        assert.equal(await store.getSetting('second'), '2', 'the transaction committed right after the one applied is in the copy');
      } finally {
        await Promise.all([first.end(), second.end()]);
      }
    });
  });

  test('a caught-up node moves its slot past WAL of other tables, so PostgreSQL need not keep it', async () => {
    await withNode('leveldap_idle', async ({ store, admin }) => {
      try {
        await admin.query('CREATE TABLE not_the_directory (n integer); INSERT INTO not_the_directory SELECT generate_series(1, 50000)');
        const after = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
        const past = async () => (await admin.query<{ past: boolean }>(
          'SELECT confirmed_flush_lsn >= $1::pg_lsn AS past FROM pg_replication_slots WHERE slot_name = $2', [after, 'leveldap_idle'])).rows[0]?.past === true;
        assert.ok(await eventually(past, 8000), `the slot confirms ${await confirmed(admin, 'leveldap_idle')}, not past ${after}`);
        await admin.query("INSERT INTO leveldap_settings VALUES ('later', 'yes')");
        assert.ok(await eventually(async () => (await store.getSetting('later')) === 'yes'), 'a directory write after it is applied');
      } finally {
        await admin.query('DROP TABLE IF EXISTS not_the_directory');
      }
    });
  });

  test('the position stored never goes back: the sync of every second does not write an older one after a newer batch', async () => {
    const stored: bigint[] = [];
    const slow = (store: DirectoryStore): LocalCopy => ({
      dir: store.dir, indexed: store.indexed, records: (keys) => store.records(keys), getMeta: (name) => store.getMeta(name),
      hasEntries: () => store.hasEntries(), wipe: () => store.wipe(), compact: () => store.compact(),
      writeLocal: async (ops, sync) => {
        const written = store.writeLocal(ops, sync);
        for (const op of ops) if (op.key === metaKey('pg:position') && op.type === 'put') stored.push(parseLsn(op.value.toString()));
        await written;
        if (!sync) await new Promise((resolve) => setTimeout(resolve, 30)); // written, but known as written only later
      },
    });
    await withNode('leveldap_forward', async ({ store, admin }) => {
      for (let i = 0; i < 120; i += 1) {
        await admin.query('INSERT INTO leveldap_settings VALUES ($1, $2)', [`forward-${i}`, String(i)]);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.ok(await eventually(async () => (await store.getSetting('forward-119')) === '119'), 'every write applied');
      const back = stored.findIndex((position, i) => i > 0 && position < stored[i - 1]!);
      assert.equal(back, -1, `position ${stored[back]} stored after ${stored[back - 1]}`);
    }, slow);
  });
});
