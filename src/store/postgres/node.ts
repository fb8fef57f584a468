/**
 * A leveldap node of a PostgreSQL store (docs/scale-out.md): its LevelDB becomes the local copy
 * that the applier keeps (applier.ts), its writes go to PostgreSQL (record.ts), and it knows how
 * fresh its copy is (reads are refused past --max-staleness seconds without PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';
import type { DirectoryStore } from '../store.js';
import { Applier, type ApplierLog } from './applier.js';
import { PostgresFailures } from './failures.js';
import { PostgresRecord } from './record.js';
import { SLOT_PREFIX, openStorePool } from './schema.js';
import { DEFAULT_MAX_STALENESS } from './url.js';

/** Connections to PostgreSQL a node's writes use at most (each write holds one from its entry locks to its commit). */
const POOL_SIZE = 16;
const CONNECT_TIMEOUT_MILLIS = 3000;
/**
 * A query of a write (or of the lockout's shared failures) not answered in this time fails: the
 * write answers unavailable (52), or `other` once its COMMIT was sent. Ten seconds: a write's
 * round trip takes milliseconds, a lock held by another node's write as long as that write.
 */
const QUERY_TIMEOUT_MILLIS = 10_000;

export interface NodeOptions {
  /** The node's name (its replication slot is leveldap_NAME); by default the one its copy has, else a new random one. */
  readonly name?: string;
  readonly maxStaleness?: number;
  readonly log: ApplierLog;
}

export interface StoreNode {
  readonly slot: string;
  readonly applier: Applier;
  /** Resolves if the node can no longer follow the store (its slot was dropped): serve stops. */
  readonly lost: Promise<Error>;
  close(): Promise<void>;
}

/** A slot name from a node name: lowercase letters, digits and _ (PostgreSQL's rule), at most 63 characters. */
export function slotName(name: string): string {
  const slot = `${SLOT_PREFIX}${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
  if (slot.length > 63) throw new StoreError(`the node name ${name} is too long for a replication slot name (63 characters with ${SLOT_PREFIX})`);
  return slot;
}

/** Opens the node: the schema made when missing, the local copy prepared, streaming started, writes attached. */
export async function openNode(url: string, store: DirectoryStore, options: NodeOptions): Promise<StoreNode> {
  const idleError = (error: Error) => options.log.warn({ err: error.message }, 'an idle connection to PostgreSQL failed');
  const pool = await openStorePool(url, { max: POOL_SIZE, connectMillis: CONNECT_TIMEOUT_MILLIS, queryMillis: QUERY_TIMEOUT_MILLIS, schema: true, idleError }).catch((error: unknown) => {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`cannot use the PostgreSQL store: ${(error as Error).message}`);
  });
  const slot = options.name !== undefined ? slotName(options.name) : (await store.getMeta('pg:slot')) ?? slotName(randomBytes(6).toString('hex'));
  const applier = new Applier(store, url, slot, options.log);
  try {
    await applier.start();
  } catch (error) {
    await applier.stop();
    await pool.end();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`cannot copy or follow the PostgreSQL store: ${(error as Error).message}`);
  }
  const maxStalenessMillis = (options.maxStaleness ?? DEFAULT_MAX_STALENESS) * 1000;
  store.attach(new PostgresRecord(pool, applier, store, { log: options.log, maxStalenessMillis }, new PostgresFailures(pool, slot, options.log)));
  return {
    slot,
    applier,
    lost: applier.lost,
    close: async () => {
      await applier.stop();
      await pool.end();
    },
  };
}
