/**
 * A node of a PostgreSQL store starting (src/store/postgres/applier.ts). Its first copy of the
 * store cut short, as a SIGKILL or a full disk during a join leaves it: some batches of entries
 * in its LevelDB, the copy unfinished. Started again on that --data, the node copies the store again (it is its own
 * unfinished copy, not someone's database), while a LevelDB holding entries of its own is still
 * refused. The cut is made deterministic by a local copy whose second batch fails. And a node
 * whose slot another connection still streams from (the walsender of a node that died, not yet
 * gone) fails to start, saying so, rather than waiting for ever. A node whose slot PostgreSQL
 * invalidated while it was stopped (max_slot_wal_keep_size: the slot is there, its WAL is not)
 * copies the store again instead of failing to stream from it.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { postgresUnavailable, startPostgres, type PostgresCluster } from '../../src/harness/postgres.js';
import { encodeEntry } from '../../src/store/codec.js';
import { parseDn } from '../../src/store/dn.js';
import { DirectoryStore, dnKey } from '../../src/store/index.js';
import { LogicalReplicationService, PgoutputPlugin } from 'pg-logical-replication';
import { Applier, type ApplierLog, type LocalCopy } from '../../src/store/postgres/applier.js';
import { PUBLICATION, ensureSchema } from '../../src/store/postgres/schema.js';
import { entry, tempDir } from '../helpers/store.js';

const skip = postgresUnavailable() ?? false;
/** More than one batch of the copy (COPY_BATCH, 2000). */
const USERS = 2500;
const BASE = 'dc=example,dc=com';

/** A log that keeps its warnings. */
function recordingLog(): ApplierLog & { readonly warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, warn: (_details, message) => warnings.push(message), error: (_details, message) => warnings.push(message) };
}

/** Starts a node's applier on `store` through `slot` (copying or resuming), stops it; what it warned of. */
async function startedOnce(store: DirectoryStore, url: string, slot: string): Promise<string[]> {
  const log = recordingLog();
  const applier = new Applier(store, url, slot, log);
  try {
    await applier.start();
  } finally {
    await applier.stop();
  }
  return log.warnings;
}

/** The store's rows: the base entry, ou=People and USERS people, inserted as a node would write them. */
async function populate(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await ensureSchema(client);
    const entries = [
      entry(BASE, { objectClass: ['domain'], dc: 'example' }),
      entry(`ou=People,${BASE}`, { objectClass: ['organizationalUnit'], ou: 'People' }),
      ...Array.from({ length: USERS }, (_, n) => entry(`uid=user.${n},ou=People,${BASE}`, { objectClass: ['account'], uid: `user.${n}` })),
    ];
    const keys = entries.map((one) => dnKey(parseDn(one.dn)));
    const parents = keys.map((_key, i) => (i === 0 ? null : dnKey(parseDn(entries[i]!.dn).slice(1))));
    await client.query('INSERT INTO leveldap_entries (key, parent, record) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])', [keys, parents, entries.map(encodeEntry)]);
  } finally {
    await client.end();
  }
}

/** The store as a LocalCopy whose first write after some entries are in fails, as a process killed there would stop. */
function failingCopy(store: DirectoryStore): LocalCopy {
  return {
    dir: store.dir, indexed: store.indexed,
    records: (keys) => store.records(keys), getMeta: (name) => store.getMeta(name), hasEntries: () => store.hasEntries(), wipe: () => store.wipe(),
    compact: () => store.compact(),
    writeLocal: async (ops, sync) => {
      if (await store.hasEntries()) throw new Error('the node died here');
      await store.writeLocal(ops, sync);
    },
  };
}

describe('a node of a PostgreSQL store starting on its --data (applier.ts)', { skip }, () => {
  let cluster: PostgresCluster;

  before(async () => {
    cluster = await startPostgres();
    await populate(cluster.url);
  });
  after(async () => { await cluster?.destroy(); });

  test('a node whose first copy of the store was cut short copies it again', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    try {
      const cut = new Applier(failingCopy(store), cluster.url, 'leveldap_cut', recordingLog());
      await assert.rejects(cut.start(), /the node died here/);
      await cut.stop();
      assert.ok(await store.hasEntries(), 'the first batch of the copy is in the LevelDB');
      const warnings = await startedOnce(store, cluster.url, 'leveldap_cut');
      assert.equal(await store.countEntries(), USERS + 2, 'every entry copied once');
      assert.ok(await store.get(`uid=user.${USERS - 1},ou=People,${BASE}`));
      assert.ok(warnings.some((warning) => /copied again/.test(warning)), warnings.join('\n'));
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test('a node whose slot PostgreSQL invalidated (max_slot_wal_keep_size) while it was stopped copies the store again', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      const first = new Applier(store, cluster.url, 'leveldap_invalidated', recordingLog());
      await first.start();
      await first.stop();
      await admin.query("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'");
      await admin.query('SELECT pg_reload_conf()');
      await admin.query('CREATE TABLE filler (x text)');
      for (let i = 0; i < 4; i += 1) {
        await admin.query("INSERT INTO filler SELECT repeat('x', 100) FROM generate_series(1, 1000)");
        await admin.query('SELECT pg_switch_wal()');
      }
      await admin.query('CHECKPOINT');
      const slot = await admin.query<{ wal_status: string }>("SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'leveldap_invalidated'");
      assert.equal(slot.rows[0]?.wal_status, 'lost', 'the slot is invalidated');
      const warnings = await startedOnce(store, cluster.url, 'leveldap_invalidated');
      assert.equal(await store.countEntries(), USERS + 2, 'every entry copied');
      assert.ok(warnings.some((warning) => /invalidated/.test(warning) && /copied again/.test(warning)), warnings.join('\n'));
      const now = await admin.query<{ wal_status: string }>("SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'leveldap_invalidated'");
      assert.notEqual(now.rows[0]?.wal_status, 'lost', 'a new slot');
    } finally {
      await admin.query('ALTER SYSTEM RESET max_slot_wal_keep_size').catch(() => {}); // not in a transaction block: a statement alone
      await admin.query('DROP TABLE IF EXISTS filler').catch(() => {});
      await admin.query('SELECT pg_reload_conf()').catch(() => {});
      await admin.end();
      await store.close();
      await dir.remove();
    }
  });

  test('a LevelDB holding entries of its own is still refused', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    try {
      await store.add(entry(BASE, { objectClass: ['domain'], dc: 'example' }), { allowNewSuffix: true });
      const applier = new Applier(store, cluster.url, 'leveldap_own', recordingLog());
      await assert.rejects(applier.start(), /holds entries that are not a copy of the PostgreSQL store/);
      await applier.stop();
      assert.equal(await store.countEntries(), 1, 'its entries are left alone');
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test('a node whose slot is still streamed by another connection fails to start, saying so', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    const holder = new LogicalReplicationService({ connectionString: cluster.url }, { acknowledge: { auto: false, timeoutSeconds: 0 } });
    holder.on('error', () => {});
    try {
      const first = new Applier(store, cluster.url, 'leveldap_held', recordingLog());
      await first.start();
      await first.stop();
      const holding = new Promise<void>((resolve) => holder.once('start', () => resolve()));
      void holder.subscribe(new PgoutputPlugin({ protoVersion: 1, publicationNames: [PUBLICATION] }), 'leveldap_held').catch(() => {});
      await holding;
      const again = new Applier(store, cluster.url, 'leveldap_held', recordingLog());
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        again.start().then(() => 'started', (error: Error) => error.message),
        new Promise<string>((resolve) => { timer = setTimeout(() => resolve('still starting after 15 s'), 15_000); }),
      ]).finally(() => clearTimeout(timer));
      await again.stop();
      assert.match(outcome, /replication slot "leveldap_held" is active/);
    } finally {
      await holder.destroy();
      await store.close();
      await dir.remove();
    }
  });
});
