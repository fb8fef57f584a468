/**
 * `leveldap bench-schemes`: what a stronger hash costs. For each scheme and cost: N users
 * imported, a server started, authrate run for D seconds; a Markdown table on stdout and an SVG
 * chart. `--compare-slapd` runs the same against OpenLDAP slapd. `--micro`: only the cost of
 * each scheme per encode and verify on one core.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import cliProgress from 'cli-progress';
import type { Argv, CommandModule } from 'yargs';
import { benchScheme, benchmarkableSchemes, type SchemeTiming } from '../../bench-schemes/micro.js';
import type { SchemeCase } from '../../bench-schemes/bench.js';
import { slapdAvailable } from '../../harness/slapd.js';
import { formatMicros, formatRate } from '../../bench-schemes/timing.js';
import { CliError } from '../support/errors.js';
import { registryFromOptions, withSchemeOptions, type SchemeOptions } from '../options/schemes.js';
import { formatTable } from '../support/table.js';
import { errorMessage } from '../../errors.js';

interface BenchArgs extends SchemeOptions {
  micro: boolean;
  scheme?: string[];
  millis: number;
  json: boolean;
  users: number;
  duration: number;
  'warm-up': number;
  connections: number;
  'compare-slapd': boolean;
  svg: string;
}

/** SSHA, SSHA512 and PBKDF2-SHA256 at three costs; plugin schemes are added to these. */
const DEFAULT_CASES = ['SSHA', 'SSHA512', 'PBKDF2-SHA256:1000', 'PBKDF2-SHA256:10000', 'PBKDF2-SHA256:100000'];

function microRow(timing: SchemeTiming): string[] {
  return [
    timing.scheme, timing.params || '-',
    formatMicros(timing.encode.microsPerOp), formatRate(timing.encode.opsPerSecond),
    formatMicros(timing.verify.microsPerOp), formatRate(timing.verify.opsPerSecond),
  ];
}

async function micro(args: BenchArgs): Promise<void> {
  const registry = await registryFromOptions(args);
  const options = { minMillis: args.millis, minOperations: 5 };
  const header = ['SCHEME', 'PARAMS', 'ENCODE µs', 'ENCODE/s', 'VERIFY µs', 'VERIFY/s'];
  const timings: SchemeTiming[] = [];
  for (const name of benchmarkableSchemes(registry, args.scheme ?? [])) {
    timings.push(await benchScheme(registry, name, options));
    if (!args.json) process.stderr.write(`measured {${timings.at(-1)!.scheme}}\n`);
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(timings, null, 2)}\n`);
    return;
  }
  process.stdout.write(formatTable([header, ...timings.map(microRow)], new Set([2, 3, 4, 5])));
  process.stdout.write('One operation at a time (one core); PBKDF2 runs in the libuv thread pool. Node ' + process.version + '\n');
}

/**
 * The full run's modules (authrate's engine and its HDR histogram: some 15 MB of resident memory)
 * load only when it runs, so that every other command, `serve` above all, does without them.
 */
const fullRun = async () => ({ ...(await import('../../bench-schemes/bench.js')), ...(await import('../../bench-schemes/report.js')) });

/** The cases asked for, or the defaults plus every scheme the plugins added. */
async function cases(args: BenchArgs, parseCase: (text: string) => SchemeCase): Promise<SchemeCase[]> {
  const registry = await registryFromOptions(args);
  const pluginSchemes = registry.list().filter((entry) => entry.origin !== 'built-in' && entry.scheme.encode).map((entry) => entry.scheme.names[0]!);
  const texts = args.scheme ?? [...DEFAULT_CASES, ...pluginSchemes];
  return texts.map((text) => {
    try {
      const item = parseCase(text);
      registry.require(item.scheme);
      return item;
    } catch (error) {
      throw new CliError(`--scheme ${text}: ${errorMessage(error)}`);
    }
  });
}

function progressBar(total: number): { stage(text: string): void; stop(): void } {
  if (!process.stderr.isTTY) return { stage: (text) => process.stderr.write(`${text}...\n`), stop: () => undefined };
  const bar = new cliProgress.SingleBar({ format: 'bench-schemes [{bar}] {value}/{total} | {stage}', stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic);
  bar.start(total, 0, { stage: 'starting' });
  let done = -1;
  return {
    stage: (text) => bar.update((done += 1), { stage: text }),
    stop: () => { bar.update(total, { stage: 'done' }); bar.stop(); },
  };
}

function describeMachine(args: BenchArgs): string {
  const cpu = os.cpus();
  return `${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, Node ${process.version}; `
    + `${args.users} users, authrate -c ${args.connections} -f, ${args.duration} s after ${args['warm-up']} s warm-up`;
}

async function full(args: BenchArgs): Promise<void> {
  if (args['compare-slapd'] && !slapdAvailable()) throw new CliError('--compare-slapd: slapd, slapadd or ldapwhoami is not installed');
  const { parseCase, runSchemeBench, markdownTable, svgChart } = await fullRun();
  const selected = await cases(args, parseCase);
  const stagesPerCase = 3 + (args['compare-slapd'] ? 1 : 0);
  const progress = progressBar(selected.length * stagesPerCase);
  const results = await runSchemeBench({
    cases: selected, users: args.users, seconds: args.duration, warmUpSeconds: args['warm-up'], connections: args.connections,
    compareSlapd: args['compare-slapd'], plugins: args['scheme-plugin'] ?? [], onStage: progress.stage,
  }).finally(() => progress.stop());
  const caption = describeMachine(args);
  await writeFile(args.svg, svgChart(results, caption));
  process.stdout.write(`${caption}\n\n${markdownTable(results)}\nChart: ${args.svg}\n`);
}

async function handler(args: BenchArgs): Promise<void> {
  for (const name of ['users', 'duration', 'connections'] as const) {
    if (!(args[name] > 0)) throw new CliError(`--${name} must be positive`);
  }
  await (args.micro ? micro(args) : full(args));
}

export const benchSchemesCommand: CommandModule<object, BenchArgs> = {
  command: 'bench-schemes',
  describe: 'what a stronger hash costs: binds/s and tail latency per scheme and cost (Markdown table + SVG chart)',
  builder: (yargs: Argv) => withSchemeOptions(yargs)
    .option('scheme', { type: 'string', array: true, requiresArg: true, describe: `SCHEME or SCHEME:ITERATIONS (repeatable; default ${DEFAULT_CASES.join(' ')} and plugin schemes)` })
    .option('users', { type: 'number', default: 1000, requiresArg: true, describe: 'users to import' })
    .option('duration', { alias: 'd', type: 'number', default: 10, requiresArg: true, describe: 'seconds of authrate per server and scheme' })
    .option('warm-up', { type: 'number', default: 2, requiresArg: true, describe: 'seconds of binds before counting' })
    .option('connections', { alias: 'c', type: 'number', default: 32, requiresArg: true, describe: 'authrate connections' })
    .option('compare-slapd', { type: 'boolean', default: false, describe: 'run the same against OpenLDAP slapd (installed) and show it beside' })
    .option('svg', { type: 'string', default: 'bench-schemes.svg', requiresArg: true, describe: 'where to write the chart' })
    .option('micro', { type: 'boolean', default: false, describe: 'only µs per encode and verify on one core, no server' })
    .option('millis', { type: 'number', default: 1000, describe: '--micro: measure each operation for at least this long' })
    .option('json', { type: 'boolean', default: false, describe: '--micro: print JSON' }) as Argv<BenchArgs>,
  handler,
};
