/**
 * `leveldap nodes --store URL`: the nodes of a PostgreSQL store, one replication slot each (its
 * name, whether a node streams from it, the position the node confirmed, the WAL it keeps);
 * `--json` for scripts; `--drop NAME` drops the slot of a node that is gone, so it stops
 * keeping WAL (an active slot is refused; a node whose slot was dropped copies the store again).
 */
import pg from 'pg';
import type { Argv, CommandModule } from 'yargs';
import { StoreError } from '../../store/index.js';
import { dropNodeSlot, nodeSlots, type NodeSlot } from '../../store/postgres/index.js';
import { storeFromOptions, withStoreUrlOption, type StoreOptions } from '../options/store.js';
import { formatTable } from '../support/table.js';

interface NodesArgs extends Pick<StoreOptions, 'store'> {
  json: boolean;
  drop?: string;
}

const CONNECT_TIMEOUT_MILLIS = 5000;

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MILLIS });
  try {
    await client.connect();
  } catch (error) {
    throw new StoreError(`cannot reach the PostgreSQL store: ${(error as Error).message}`);
  }
  return client;
}

function row(slot: NodeSlot): string[] {
  return [slot.node, slot.slot, slot.active ? 'yes' : 'no', slot.confirmed ?? '-', slot.walRetainedBytes === null ? '-' : String(slot.walRetainedBytes), slot.walStatus ?? '-'];
}

function listing(slots: readonly NodeSlot[]): string {
  if (slots.length === 0) return 'no leveldap node has a replication slot in this PostgreSQL store\n';
  const header = ['NODE', 'SLOT', 'ACTIVE', 'CONFIRMED', 'WAL RETAINED (bytes)', 'WAL STATUS'];
  return formatTable([header, ...slots.map(row)], new Set([4]));
}

async function handler(args: NodesArgs): Promise<void> {
  const { url } = await storeFromOptions({ store: args.store }, undefined);
  const client = await connected(url!);
  try {
    if (args.drop !== undefined) {
      const dropped = await dropNodeSlot(client, args.drop);
      process.stdout.write(args.json ? `${JSON.stringify({ dropped }, null, 2)}\n` : `dropped the slot ${dropped.slot} of node ${dropped.node}\n`);
      return;
    }
    const slots = await nodeSlots(client);
    process.stdout.write(args.json ? `${JSON.stringify({ nodes: slots }, null, 2)}\n` : listing(slots));
  } finally {
    await client.end();
  }
}

export const nodesCommand: CommandModule<object, NodesArgs> = {
  command: 'nodes',
  describe: 'list the nodes of a PostgreSQL store (their replication slots and the WAL each keeps), or drop one\'s slot (--drop)',
  builder: (yargs: Argv) => withStoreUrlOption(yargs, 'the PostgreSQL store whose nodes to list')
    .demandOption('store')
    .option('json', { type: 'boolean', default: false, describe: 'print JSON' })
    .option('drop', { type: 'string', requiresArg: true, describe: 'drop the replication slot of this node (its name, or the slot\'s: leveldap_NAME); refused while the node runs' }) as Argv<NodesArgs>,
  handler,
};
