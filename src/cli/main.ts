/** The `leveldap` command line: one yargs command module per command in ./commands. */
import yargs, { type Arguments, type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SchemeError } from '../password/index.js';
import { DirectoryError, StoreError } from '../store/index.js';
import { LdifError } from '../ldif/index.js';
import { CliError } from './support/errors.js';
import { benchSchemesCommand } from './commands/bench-schemes.js';
import { encodePasswordCommand } from './commands/encode-password.js';
import { schemesCommand } from './commands/schemes.js';
import { serveCommand } from './commands/serve.js';
import { importLdifCommand } from './commands/import-ldif.js';
import { exportLdifCommand } from './commands/export-ldif.js';
import { makeLdifCommand } from './commands/make-ldif.js';
import { nodesCommand } from './commands/nodes.js';
import { topCommand } from './commands/top.js';

/** Exit status for usage errors and user mistakes (bad scheme, bad plugin, unreadable file). */
const USAGE_ERROR = 2;

/** Errors that are the input's fault: the message is enough, no stack. */
function isExpected(error: Error | undefined): boolean {
  return error instanceof StoreError || error instanceof DirectoryError || error instanceof LdifError;
}

function reportFailure(message: string | undefined, error: Error | undefined): never {
  const usage = !error || error instanceof CliError || error instanceof SchemeError;
  const text = message ?? (usage || isExpected(error) ? error!.message : error?.stack ?? String(error));
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
  const parser = yargs(hideBin(argv));
  await parser
    .scriptName('leveldap')
    .middleware((args) => lastValueWins(args, parser), true)
    .command(serveCommand)
    .command(encodePasswordCommand)
    .command(schemesCommand)
    .command(benchSchemesCommand)
    .command(importLdifCommand)
    .command(exportLdifCommand)
    .command(makeLdifCommand)
    .command(nodesCommand)
    .command(topCommand)
    .demandCommand(1, 'name a command; see --help')
    .strict()
    .fail((message, error) => reportFailure(message || undefined, error))
    .help()
    .parseAsync();
}
