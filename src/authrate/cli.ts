/**
 * What the command lines of authrate, searchrate and modrate share (each tool's module has its
 * `main`: authrate.ts, searchrate.ts, modrate.ts): parse, check that the server answers, run the
 * load, print the table, CSV or JSON. Exit status: 0 when the run completes (failures during the
 * run only show in err/sec), 89 for a bad argument, 91 when the server cannot be reached at the
 * start, or no connection can be opened during the run, which then stops (OpenDJ exits with that
 * LDAP result code).
 */
import { UsageError, USAGE_EXIT_CODE, type LoadConfig } from './options.js';
import { CONNECT_ERROR, ConnectionError } from './connection.js';
import { probe, startLoad, type LoadListener, type WorkloadFactory } from './engine.js';
import { csvHeader, csvRow, jsonSummary, tableHeader, tableRow, warmUpMessage, type ExtraColumn } from './report.js';
import type { StatsRow } from './stats.js';
import { asError } from '../errors.js';

/** One load tool: its name, its command line, and what its workers do. */
export interface Tool<C extends LoadConfig> {
  readonly name: string;
  /** Parses the arguments (without the node and script names); throws UsageError. */
  parse(args: readonly string[]): C;
  workload(config: C): WorkloadFactory;
  /** The column the table adds after err/sec for this run, if any. */
  extraColumn?(config: C): ExtraColumn | undefined;
}

function print(lines: string | readonly string[]): void {
  process.stdout.write(`${typeof lines === 'string' ? lines : lines.join('\n')}\n`);
}

/** What to print as the run goes, by output mode. */
function listener(config: LoadConfig, extra: ExtraColumn | undefined): LoadListener & { final(row: StatsRow): void } {
  if (config.json) return { final: () => undefined };
  const format = (row: StatsRow) => (config.scriptFriendly ? csvRow(row, extra) : tableRow(row, extra));
  return {
    warmingUp: (seconds) => {
      if (!config.scriptFriendly) print(warmUpMessage(seconds));
    },
    started: () => print(config.scriptFriendly ? csvHeader(config.percentiles, extra) : tableHeader(config.percentiles, extra)),
    interval: (row) => print(format(row)),
    final: (row) => print(format(row)),
  };
}

async function run<C extends LoadConfig>(tool: Tool<C>, config: C): Promise<void> {
  await probe(config);
  const extra = tool.extraColumn?.(config);
  const output = listener(config, extra);
  const load = startLoad(config, tool.workload(config), output);
  const onSignal = () => load.stop();
  process.once('SIGINT', onSignal);
  try {
    const { final, summary, lost } = await load.done;
    output.final(final);
    if (config.json) print(jsonSummary(summary, extra));
    if (lost) throw new ConnectionError(`${lost.message}: the run stopped`);
  } finally {
    process.off('SIGINT', onSignal);
  }
}

function exitOn(name: string, error: unknown): void {
  if (error instanceof UsageError) {
    process.stderr.write(`${name}: ${error.message}\nSee ${name} --help.\n`);
    process.exitCode = USAGE_EXIT_CODE;
  } else if (error instanceof ConnectionError) {
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exitCode = CONNECT_ERROR;
  } else {
    process.stderr.write(`${name}: ${asError(error).stack}\n`);
    process.exitCode = 1;
  }
}

/** Runs a tool; `argv` as process.argv: the node binary and the script first. */
export async function runTool<C extends LoadConfig>(tool: Tool<C>, argv: readonly string[]): Promise<void> {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  try {
    await run(tool, tool.parse(argv.slice(2)));
  } catch (error) {
    exitOn(tool.name, error);
  }
}
