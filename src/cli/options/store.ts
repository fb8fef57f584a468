/**
 * Where the entries live: --store postgres://... makes this process a node of a PostgreSQL store
 * (docs/scale-out.md) with --data as its local copy; without it, --data is the database.
 * --node-name names the node's replication slot, --max-staleness (serve) bounds how long reads
 * go on without PostgreSQL. The --config file may hold "store", "nodeName" and "maxStaleness";
 * flags override it. import-ldif, export-ldif and nodes take --store alone (withStoreUrlOption):
 * they use the PostgreSQL store without being a node of it. A wrong value is a usage error (CliError, exit status 2).
 */
import type { Argv } from 'yargs';
import { DEFAULT_MAX_STALENESS, isPostgresUrl } from '../../store/postgres/url.js';
import { CliError } from '../support/errors.js';
import { readJson } from './policy.js';
import type { StoreKey } from './store-keys.js';

export interface StoreOptions {
  store?: string;
  'node-name'?: string;
  'max-staleness'?: number;
}

const URL_FORM = 'postgres://user@host/db (or ?host=/run/postgresql)';

/** --store for a command that uses the PostgreSQL store without being a node: `what` it does there. */
export function withStoreUrlOption<T>(yargs: Argv<T>, what: string): Argv<T & Pick<StoreOptions, 'store'>> {
  return yargs.option('store', { type: 'string', requiresArg: true, describe: `${URL_FORM}: ${what}` }) as Argv<T & Pick<StoreOptions, 'store'>>;
}

export function withStoreOptions<T>(yargs: Argv<T>, serving = true): Argv<T & StoreOptions> {
  const options = withStoreUrlOption(yargs, 'be a node of this PostgreSQL store, --data holding the local copy')
    .option('node-name', { type: 'string', requiresArg: true, describe: 'this node\'s name in the PostgreSQL store (its replication slot: leveldap_NAME; default: the local copy\'s, else a random one)' });
  if (!serving) return options as Argv<T & StoreOptions>;
  return options
    .option('max-staleness', { type: 'number', requiresArg: true, describe: `seconds reads go on from the local copy while PostgreSQL does not answer (then 52 unavailable; default ${DEFAULT_MAX_STALENESS})` })
    .group(['store', 'node-name', 'max-staleness'], 'Store:') as Argv<T & StoreOptions>;
}

/** The PostgreSQL store to be a node of, or none. */
export interface StoreChoice {
  readonly url?: string;
  readonly nodeName?: string;
  readonly maxStaleness: number;
}

function checkedUrl(value: unknown, where: string): string {
  if (typeof value === 'string' && isPostgresUrl(value)) return value;
  throw new CliError(`${where}: a PostgreSQL URL (postgres://user@host/database), not ${JSON.stringify(value)}`);
}

function checkedName(value: unknown, where: string): string {
  if (typeof value === 'string' && /^[A-Za-z0-9_-]{1,54}$/.test(value)) return value;
  throw new CliError(`${where}: letters, digits, _ and - (at most 54), not ${JSON.stringify(value)}`);
}

function checkedSeconds(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  throw new CliError(`${where}: a number of seconds above 0, not ${Number.isNaN(value) ? 'that' : JSON.stringify(value)}`);
}

/** The store from the flags, then the --config file. */
export async function storeFromOptions(options: StoreOptions, configFile: string | undefined): Promise<StoreChoice> {
  const data = configFile === undefined ? {} : await readJson(configFile);
  const file = (typeof data === 'object' && data !== null ? data : {}) as Partial<Record<StoreKey, unknown>>;
  const pick = <T>(flag: keyof StoreOptions, key: StoreKey, check: (value: unknown, where: string) => T): T | undefined => {
    if (options[flag] !== undefined) return check(options[flag], `--${flag}`);
    return file[key] === undefined ? undefined : check(file[key], `--config ${configFile}: "${key}"`);
  };
  const url = pick('store', 'store', checkedUrl);
  const nodeName = pick('node-name', 'nodeName', checkedName);
  const maxStaleness = pick('max-staleness', 'maxStaleness', checkedSeconds) ?? DEFAULT_MAX_STALENESS;
  return { ...(url !== undefined && { url }), ...(nodeName !== undefined && { nodeName }), maxStaleness };
}
