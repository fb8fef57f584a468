/** The `leveldap` command line: one yargs command module per command in ./commands. */
import yargs, { type Arguments, type Argv, type CommandModule } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SchemeError } from '../password/index.js';
import { DirectoryError, StoreError } from '../store/index.js';
import { LdifError } from '../ldif/index.js';
import { ListenError } from '../server/errors.js';
import { CliError } from './support/errors.js';

/** Adds a command to the parser. */
type Registration = (parser: Argv) => Argv;
const command = <U>(module: CommandModule<object, U>): Registration => (parser) => parser.command(module);

/**
 * Each command's module, in the order --help lists them. Only the module of the command named
 * is loaded (all of them, for --help or anything else): loading every module, the server's and
 * PostgreSQL's client among them, took about 0.6 s before any command started.
 */
const COMMANDS: readonly (readonly [string, () => Promise<Registration>])[] = [
  ['serve', async () => command((await import('./commands/serve.js')).serveCommand)],
  ['encode-password', async () => command((await import('./commands/encode-password.js')).encodePasswordCommand)],
  ['schemes', async () => command((await import('./commands/schemes.js')).schemesCommand)],
  ['bench-schemes', async () => command((await import('./commands/bench-schemes.js')).benchSchemesCommand)],
  ['import-ldif', async () => command((await import('./commands/import-ldif.js')).importLdifCommand)],
  ['export-ldif', async () => command((await import('./commands/export-ldif.js')).exportLdifCommand)],
  ['make-ldif', async () => command((await import('./commands/make-ldif.js')).makeLdifCommand)],
  ['nodes', async () => command((await import('./commands/nodes.js')).nodesCommand)],
  ['top', async () => command((await import('./commands/top.js')).topCommand)],
];

/** The registrations of the command named first in `args`, or of every command. */
function commandModules(args: readonly string[]): Promise<Registration[]> {
  const named = COMMANDS.filter(([name]) => name === args[0]);
  return Promise.all((named.length === 1 ? named : COMMANDS).map(([, load]) => load()));
}

/** Exit status for usage errors and user mistakes (bad scheme, bad plugin, unreadable file). */
const USAGE_ERROR = 2;

/** Errors that are the input's fault: the message is enough, no stack. */
function isExpected(error: Error | undefined): boolean {
  return error instanceof StoreError || error instanceof DirectoryError || error instanceof LdifError || error instanceof ListenError;
}

/**
 * A usage error: one the option parser found (no error, its own YError for a missing value, or
 * the text a .check() threw), or one of ours about the input (CliError, SchemeError).
 */
function isUsage(error: unknown): boolean {
  return !error || typeof error === 'string' || error instanceof CliError || error instanceof SchemeError || (error instanceof Error && error.name === 'YError');
}

function reportFailure(message: string | undefined, error: Error | undefined): never {
  const usage = isUsage(error);
  const text = message ?? (typeof error === 'string' ? error : usage || isExpected(error) ? error!.message : error?.stack ?? String(error));
  process.stderr.write(`leveldap: ${text}\n`);
  process.exit(usage ? USAGE_ERROR : 1);
}

/** `leveldap schemes | head` closes the pipe early; that is not an error. */
function exitQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}

/**
 * An option given twice takes its last value, as in most command-line tools (yargs makes a list
 * of it, which `serve --log-level` handed to the logger as "warn,warn"); the repeatable options,
 * typed as arrays, keep every value.
 */
function lastValueWins(argv: Arguments, parser: Argv): void {
  // getOptions (the current command's declared options) is yargs's, missing from its typings
  const repeatable = new Set((parser as unknown as { getOptions(): { array: string[] } }).getOptions().array);
  for (const [key, value] of Object.entries(argv)) {
    if (Array.isArray(value) && key !== '_' && !repeatable.has(key)) argv[key] = value.at(-1);
  }
}

export async function main(argv: string[]): Promise<void> {
  exitQuietlyOnClosedPipe();
  const args = hideBin(argv);
  const parser = yargs(args);
  for (const register of await commandModules(args)) register(parser);
  await parser
    .scriptName('leveldap')
    .middleware((parsed) => lastValueWins(parsed, parser), true)
    .demandCommand(1, 'name a command; see --help')
    .strict()
    .fail((message, error) => reportFailure(message || undefined, error))
    .help()
    .parseAsync();
}
