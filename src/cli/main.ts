/** The `leveldap` command line: one yargs command module per command in ./commands. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SchemeError } from '../password/index.js';
import { CliError } from './errors.js';
import { benchSchemesCommand } from './commands/bench-schemes.js';
import { encodePasswordCommand } from './commands/encode-password.js';
import { schemesCommand } from './commands/schemes.js';
import { serveCommand } from './commands/serve.js';

/** Exit status for usage errors and user mistakes (bad scheme, bad plugin, unreadable file). */
const USAGE_ERROR = 2;

function reportFailure(message: string | undefined, error: Error | undefined): never {
  const known = error instanceof CliError || error instanceof SchemeError;
  process.stderr.write(`leveldap: ${message ?? (known ? error.message : error?.stack ?? String(error))}\n`);
  process.exit(known || !error ? USAGE_ERROR : 1);
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
    .demandCommand(1, 'name a command; see --help')
    .strict()
    .fail((message, error) => reportFailure(message || undefined, error))
    .help()
    .parseAsync();
}
