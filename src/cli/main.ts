/** The `leveldap` command line: one yargs command module per command in ./commands. */
import yargs from 'yargs';
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

export async function main(argv: string[]): Promise<void> {
  exitQuietlyOnClosedPipe();
  await yargs(hideBin(argv))
    .scriptName('leveldap')
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
