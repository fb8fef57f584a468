/**
 * The `authrate` bind load tool, compatible with OpenDJ/PingDS authrate. Exit status: 0 when the
 * run completes (bind failures during the run only show in err/sec), 89 for a bad argument, 91
 * when the server cannot be reached at the start (OpenDJ exits with that LDAP result code).
 */
import { AuthrateUsageError, USAGE_EXIT_CODE, parseAuthrateOptions, type AuthrateConfig } from './options.js';
import { CONNECT_ERROR, ConnectionError } from './connection.js';
import { probe, startAuthrate, type AuthrateListener } from './engine.js';
import { csvHeader, csvRow, jsonSummary, tableHeader, tableRow, warmUpMessage } from './report.js';
import type { StatsRow } from './stats.js';
import { asError } from '../errors.js';

function print(lines: string | readonly string[]): void {
  process.stdout.write(`${typeof lines === 'string' ? lines : lines.join('\n')}\n`);
}

/** What to print as the run goes, by output mode. */
function listener(config: AuthrateConfig): AuthrateListener & { final(row: StatsRow): void } {
  if (config.json) return { final: () => undefined };
  const searchThenBind = config.search !== undefined;
  const format = (row: StatsRow) => (config.scriptFriendly ? csvRow(row, searchThenBind) : tableRow(row, searchThenBind));
  return {
    warmingUp: (seconds) => {
      if (!config.scriptFriendly) print(warmUpMessage(seconds));
    },
    started: () => print(config.scriptFriendly ? csvHeader(config.percentiles, searchThenBind) : tableHeader(config.percentiles, searchThenBind)),
    interval: (row) => print(format(row)),
    final: (row) => print(format(row)),
  };
}

async function run(config: AuthrateConfig): Promise<void> {
  await probe(config);
  const output = listener(config);
  const load = startAuthrate(config, output);
  const onSignal = () => load.stop();
  process.once('SIGINT', onSignal);
  try {
    const { final, summary } = await load.done;
    output.final(final);
    if (config.json) print(jsonSummary(summary));
  } finally {
    process.off('SIGINT', onSignal);
  }
}

function exitOn(error: unknown): void {
  if (error instanceof AuthrateUsageError) {
    process.stderr.write(`authrate: ${error.message}\nSee authrate --help.\n`);
    process.exitCode = USAGE_EXIT_CODE;
  } else if (error instanceof ConnectionError) {
    process.stderr.write(`authrate: ${error.message}\n`);
    process.exitCode = CONNECT_ERROR;
  } else {
    process.stderr.write(`authrate: ${asError(error).stack}\n`);
    process.exitCode = 1;
  }
}

/** `argv` as process.argv: the node binary and the script first. */
export async function main(argv: readonly string[]): Promise<void> {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  try {
    await run(parseAuthrateOptions(argv.slice(2)));
  } catch (error) {
    exitOn(error);
  }
}
