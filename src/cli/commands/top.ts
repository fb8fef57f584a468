/**
 * `leveldap top`: a live view of a running server, read from its cn=Monitor over LDAP each
 * interval (binds/s and p50/p99 latency by scheme, operations/s, connections, the hashing
 * queue, the cache hit rate, failed binds), redrawn in place with log-update. `--once` takes
 * two readings an interval apart and prints one view (`--json`: as one JSON object, for
 * scripts). It binds as the admin by default (cn=Monitor is the admin's unless
 * --monitor-access says otherwise), the password from --password-file or LEVELDAP_ADMIN_PASSWORD,
 * over LDAPS (--use-ssl) or StartTLS (--use-starttls) if asked, as authrate connects (its
 * connection, src/authrate/connection.ts; the CA from Node's store or NODE_EXTRA_CA_CERTS).
 */
import type { Argv, CommandModule } from 'yargs';
import logUpdate from 'log-update';
import { LdapConnection, ConnectionError, within } from '../../authrate/connection.js';
import { DEFAULT_ADMIN_DN } from '../options/data.js';
import { CliError } from '../support/errors.js';
import { checkedPort } from '../options/port.js';
import { readPassword } from '../support/password-input.js';
import { readingOf, type Reading } from '../top/reading.js';
import { renderView, viewOf } from '../top/view.js';

interface TopArgs {
  host: string;
  port: number;
  'bind-dn': string;
  'password-file'?: string;
  interval: number;
  once: boolean;
  json: boolean;
  'use-ssl': boolean;
  'use-starttls': boolean;
  'trust-all': boolean;
  timeout: number;
}

/** (objectClass=*): a present filter, BER-encoded. */
const ANY_OBJECT = Buffer.concat([Buffer.from([0x87, 11]), Buffer.from('objectClass')]);
const MONITOR = { base: 'cn=Monitor', scope: 2, deref: 0, filter: ANY_OBJECT, attributes: ['*', '+'] };

function builder(yargs: Argv): Argv<TopArgs> {
  return yargs
    .option('host', { type: 'string', default: '127.0.0.1', requiresArg: true, describe: 'the server\'s address' })
    .option('port', { type: 'number', default: 1389, requiresArg: true, describe: 'its LDAP port' })
    .option('bind-dn', { type: 'string', default: DEFAULT_ADMIN_DN, requiresArg: true, describe: 'who reads cn=Monitor' })
    .option('password-file', { type: 'string', requiresArg: true, describe: 'file holding the bind password (else LEVELDAP_ADMIN_PASSWORD)' })
    .option('interval', { type: 'number', default: 1, requiresArg: true, describe: 'seconds between readings' })
    .option('once', { type: 'boolean', default: false, describe: 'two readings an interval apart, one view, then exit' })
    .option('json', { type: 'boolean', default: false, describe: 'with --once: the view as one JSON object' })
    .option('use-ssl', { type: 'boolean', default: false, describe: 'LDAPS: TLS from the first byte (--port is then the LDAPS port)' })
    .option('use-starttls', { type: 'boolean', default: false, describe: 'StartTLS before binding' })
    .option('trust-all', { type: 'boolean', default: false, describe: 'accept any server certificate' })
    .option('timeout', { type: 'number', default: 10, requiresArg: true, describe: 'seconds to wait for the server to answer (connect and bind, each reading)' }) as Argv<TopArgs>;
}

async function password(args: TopArgs): Promise<Buffer> {
  if (args['password-file'] !== undefined) return readPassword(undefined, args['password-file']);
  const fromEnv = process.env.LEVELDAP_ADMIN_PASSWORD;
  if (fromEnv === undefined || fromEnv === '') throw new CliError('give the bind password with --password-file or LEVELDAP_ADMIN_PASSWORD');
  return Buffer.from(fromEnv);
}

async function connect(args: TopArgs): Promise<LdapConnection> {
  const connection = await LdapConnection.open({
    host: args.host, port: args.port, useSsl: args['use-ssl'], useStartTls: args['use-starttls'], trustAll: args['trust-all'],
  });
  const code = await connection.bind(args['bind-dn'], await password(args));
  if (code !== 0) {
    connection.destroy();
    throw new CliError(`bind as ${args['bind-dn']} failed (result code ${code})`);
  }
  return connection;
}

async function read(connection: LdapConnection, args: TopArgs): Promise<Reading> {
  const { code, entries } = await answered(connection.searchEntries(MONITOR), args);
  if (code === 50) throw new CliError('cn=Monitor may not be read by this identity (see the server\'s --monitor-access)');
  if (code !== 0) throw new CliError(`reading cn=Monitor failed (result code ${code})`);
  return readingOf(entries, performance.now());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function once(connection: LdapConnection, args: TopArgs): Promise<void> {
  const before = await read(connection, args);
  await sleep(args.interval * 1000);
  const view = viewOf(await read(connection, args), before);
  process.stdout.write(args.json ? `${JSON.stringify(view)}\n` : renderView(view, `${args.host}:${args.port}`));
}

async function live(connection: LdapConnection, args: TopArgs): Promise<void> {
  let stopped = false;
  process.once('SIGINT', () => { stopped = true; });
  let before = await read(connection, args);
  while (!stopped) {
    await sleep(args.interval * 1000);
    if (stopped) break;
    const now = await read(connection, args);
    logUpdate(renderView(viewOf(now, before), `${args.host}:${args.port}`));
    before = now;
  }
  logUpdate.done();
}

/**
 * The work, or a CliError once the server has not answered for --timeout seconds: a server that
 * is stopped (not gone) keeps its connection open and says nothing, and top must not wait for ever.
 */
function answered<T>(work: Promise<T>, args: TopArgs): Promise<T> {
  return within(work, args.timeout * 1000, () => new CliError(`${args.host}:${args.port} did not answer within ${args.timeout} s`));
}

/** A connection error in one line: at the start the server cannot be reached; later it was lost. */
function oneLine(error: unknown, args: TopArgs, connected: boolean): unknown {
  if (!(error instanceof ConnectionError)) return error;
  return new CliError(`${connected ? 'lost' : 'cannot reach'} ${args.host}:${args.port}: ${error.message}`);
}

function checkArgs(args: TopArgs): void {
  checkedPort(args.port, '--port');
  if (!(args.interval > 0)) throw new CliError(`--interval ${args.interval}: a number of seconds above 0`);
  if (!(args.timeout > 0)) throw new CliError(`--timeout ${args.timeout}: a number of seconds above 0`);
  if (args.json && !args.once) throw new CliError('--json goes with --once');
  if (args['use-ssl'] && args['use-starttls']) throw new CliError('--use-ssl or --use-starttls, not both');
}

async function handler(args: TopArgs): Promise<void> {
  checkArgs(args);
  let connection: LdapConnection | undefined;
  const opening = connect(args).then((opened) => (connection = opened));
  try {
    await answered(opening, args);
    await (args.once ? once(connection!, args) : live(connection!, args));
  } catch (error) {
    throw oneLine(error, args, connection !== undefined);
  } finally {
    if (connection) connection.unbindAndClose();
    else void opening.then((late) => late.destroy(), () => {});
  }
}

export const topCommand: CommandModule<object, TopArgs> = {
  command: 'top',
  describe: 'a live view of a running server, from its cn=Monitor',
  builder,
  handler,
};
