/** `leveldap serve`: the LDAP server on a database directory. */
import type { Argv, CommandModule } from 'yargs';
import { setFlagsFromString } from 'node:v8';
import { DEFAULT_THREADS_MAX, FILL_WHEN, startServer, type FillWhen } from '../../server/index.js';
import { DEFAULT_CACHE_MB, DEFAULT_ENTRY_CACHE_MB, DEFAULT_EQUALITY_TABLE_MB, DEFAULT_PASSWORD_TABLE_MB, DEFAULT_RECORD_TABLE_MB, defaultRecordTableMb, MAX_TABLE_MB, MIN_TABLE_MB } from '../../store/index.js';
import { DEFAULT_ADMIN_DN, withDataOption, type DataOptions } from '../options/data.js';
import { CliError } from '../support/errors.js';
import { checkedPort } from '../options/port.js';
import { readPassword } from '../support/password-input.js';
import { limitsFromOptions, withLimitOptions } from '../options/limits.js';
import { policyFromOptions, schemaFilesOf, withPolicyOptions, type PolicyOptions } from '../options/policy.js';
import { installSchemaFiles, withSchemaFileOption, type SchemaOptions } from '../options/schema.js';
import { registryFromOptions, withSchemeOptions, type SchemeOptions } from '../options/schemes.js';
import { tlsConfig, withTlsOptions, type TlsOptions } from '../options/tls.js';
import { monitoringFromOptions, withMonitoringOptions, type MonitoringOptions } from '../options/monitoring.js';
import { storeFromOptions, withStoreOptions, type StoreOptions } from '../options/store.js';

/** More threads than this gains nothing but memory on any machine we know of. */
const MAX_THREADS = 64;

interface ServeArgs extends SchemeOptions, DataOptions, TlsOptions, PolicyOptions, SchemaOptions, MonitoringOptions, StoreOptions {
  host: string;
  port: number;
  'base-dn': string;
  'admin-dn': string;
  'admin-password-file'?: string;
  'allow-clear-default': boolean;
  'anonymous-read': boolean;
  'memberof-nested': boolean;
  'cache-mb': number;
  'entry-cache-mb': number;
  'password-table-mb': number;
  'equality-table-mb': number;
  'record-table-mb': number;
  'fill-password-table': FillWhen;
  threads?: number;
  'log-level': string;
}

function builder(yargs: Argv): Argv<ServeArgs> {
  const recordTableMb = defaultRecordTableMb();
  return withStoreOptions(withMonitoringOptions(withSchemaFileOption(withLimitOptions(withPolicyOptions(withTlsOptions(withDataOption(withSchemeOptions(yargs))))))))
    .option('host', { type: 'string', default: '127.0.0.1', requiresArg: true, describe: 'address to listen on' })
    .option('port', { type: 'number', default: 1389, requiresArg: true, describe: 'LDAP port (0: any free port)' })
    .option('base-dn', { type: 'string', default: 'dc=example,dc=com', requiresArg: true, describe: 'naming context announced in the root DSE' })
    .option('admin-dn', { type: 'string', default: DEFAULT_ADMIN_DN, requiresArg: true, describe: 'the administrator\'s bind DN' })
    .option('admin-password-file', { type: 'string', requiresArg: true, describe: 'file holding the admin password (else LEVELDAP_ADMIN_PASSWORD, else the stored one, else a generated one)' })
    .option('allow-clear-default', { type: 'boolean', default: false, describe: 'allow CLEAR as --default-scheme' })
    .option('anonymous-read', { type: 'boolean', default: true, describe: 'let anonymous clients read entries (--no-anonymous-read: bind only)' })
    .option('memberof-nested', { type: 'boolean', default: false, describe: 'memberOf lists the groups reached through nested groups too, and (memberOf=G) matches their members' })
    .option('cache-mb', { type: 'number', default: DEFAULT_CACHE_MB, requiresArg: true, describe: 'LevelDB block cache in MiB (part of resident memory)' })
    .option('entry-cache-mb', { type: 'number', default: DEFAULT_ENTRY_CACHE_MB, requiresArg: true, describe: 'entry records each serving thread keeps in MiB while no write lands, when all of them fit (part of resident memory; 0: none)' })
    .option('password-table-mb', { type: 'number', default: DEFAULT_PASSWORD_TABLE_MB, requiresArg: true, describe: 'every account\'s userPassword values in memory shared by the serving threads, at most this many MiB, filled by binds and, while the server is quiet, a walk over the entries (part of resident memory as it fills; 0: none)' })
    .option('fill-password-table', { type: 'string', choices: FILL_WHEN, default: 'before', requiresArg: true, describe: 'when every account\'s userPassword is read into the password table besides what binds keep: before listening (the start later by the walk: a million users, about 2.5 s here), while the server is quiet, at once (binds slower meanwhile), or never' })
    .option('equality-table-mb', { type: 'number', default: DEFAULT_EQUALITY_TABLE_MB, requiresArg: true, describe: 'answers of the equality index (the entries holding one value: a (uid=...) search) in memory shared by the serving threads, at most this many MiB, filled by searches (part of resident memory as it fills; 0: none)' })
    .option('record-table-mb', { type: 'number', default: recordTableMb, defaultDescription: `a sixteenth of the memory, ${DEFAULT_RECORD_TABLE_MB} to ${MAX_TABLE_MB}: ${recordTableMb} here`, requiresArg: true, describe: 'entry records (up to 2 KB each) in memory shared by the serving threads, for searches of a directory too large for each thread\'s entry cache, at most this many MiB, filled by searches (part of resident memory as it fills; 0: none)' })
    .option('threads', { type: 'number', requiresArg: true, describe: `event loops serving connections, worker threads sharing the port and database (default: one per core, at most ${DEFAULT_THREADS_MAX}; one with lockout on)` })
    .option('log-level', { type: 'string', default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], describe: 'log level (access log at info)' }) as Argv<ServeArgs>;
}

/**
 * V8 lets a heap grow to about twice what survived its last full collection before the next
 * one; serve's heaps are mostly short-lived garbage, and with a thread per core that headroom
 * was most of the resident memory. 25% keeps each serving thread's heap near 30 MB with
 * 100,000 users binding at random (docs/performance.md, "Memory"); V8 reads it at each
 * collection, so setting it here applies to every thread.
 */
function limitHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=25');
}

async function adminPassword(args: ServeArgs): Promise<Buffer | undefined> {
  const file = args['admin-password-file'];
  const password = file !== undefined ? await readPassword(undefined, file) : process.env.LEVELDAP_ADMIN_PASSWORD;
  if (password === undefined) return undefined;
  if (password.length === 0) throw new CliError('the admin password is empty');
  return Buffer.from(password);
}

/** A shared table's size option: 0 (none) or MIN_TABLE_MB to MAX_TABLE_MB. */
function checkTableMb(option: string, mb: number): void {
  if (!Number.isInteger(mb) || mb < 0 || (mb > 0 && mb < MIN_TABLE_MB) || mb > MAX_TABLE_MB) {
    throw new CliError(`--${option} ${mb}: a whole number of MiB, 0 (none) or ${MIN_TABLE_MB} to ${MAX_TABLE_MB}`);
  }
}

async function handler(args: ServeArgs): Promise<void> {
  checkedPort(args.port, '--port');
  if (!Number.isInteger(args['cache-mb']) || args['cache-mb'] < 1) throw new CliError(`--cache-mb ${args['cache-mb']}: a whole number of MiB, at least 1`);
  if (!Number.isInteger(args['entry-cache-mb']) || args['entry-cache-mb'] < 0) throw new CliError(`--entry-cache-mb ${args['entry-cache-mb']}: a whole number of MiB, 0 or more`);
  checkTableMb('password-table-mb', args['password-table-mb']);
  checkTableMb('equality-table-mb', args['equality-table-mb']);
  checkTableMb('record-table-mb', args['record-table-mb']);
  const { threads } = args;
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)) throw new CliError(`--threads ${Number.isNaN(threads) ? 'needs a number' : threads}: a whole number from 1 to ${MAX_THREADS}`);
  limitHeapGrowth();
  const schemaFiles = [...(await schemaFilesOf(args.config)), ...(args.schema ?? [])];
  installSchemaFiles(schemaFiles);
  const registry = await registryFromOptions(args);
  const tls = await tlsConfig(args);
  const policy = await policyFromOptions(args);
  const monitoring = await monitoringFromOptions(args, args.config);
  const store = await storeFromOptions(args, args.config);
  const started = await startServer({
    ...(monitoring.metrics && { metrics: monitoring.metrics }), ...(store.url !== undefined && { postgres: store }),
    dataDir: args.data, cacheMb: args['cache-mb'], entryCacheMb: args['entry-cache-mb'], passwordTableMb: args['password-table-mb'], fillPasswordTable: args['fill-password-table'], equalityTableMb: args['equality-table-mb'], recordTableMb: args['record-table-mb'], registry, defaultScheme: policy.defaultScheme, policy, allowClearDefault: args['allow-clear-default'],
    adminPassword: await adminPassword(args), logLevel: args['log-level'], schemaFiles, ...(threads !== undefined && { threads }),
    config: {
      host: args.host, port: args.port, baseDn: args['base-dn'], adminDn: args['admin-dn'], anonymousRead: args['anonymous-read'],
      limits: await limitsFromOptions(args, args.config),
      ...(tls && { tls }), requireTlsForBinds: args['require-tls-for-binds'], memberOfNested: args['memberof-nested'],
      monitorAccess: monitoring.monitorAccess,
    },
  });
  if (started.generatedAdminPassword) {
    process.stderr.write(`leveldap: generated the admin password for ${args['admin-dn']}: ${started.generatedAdminPassword}\n`
      + 'leveldap: it is stored hashed and will not be shown again; set another with --admin-password-file\n');
  }
  let stopping: Promise<void> | undefined;
  const stopOnce = () => (stopping ??= started.stop());
  const shutdown = (signal: string) => {
    started.log.info({ signal }, 'stopping');
    stopOnce().then(() => process.exit(0), () => process.exit(1));
  };
  void started.failure.then(() => stopOnce().finally(() => process.exit(1)));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: 'serve',
  describe: 'run the LDAP server on a database',
  builder,
  handler,
};
