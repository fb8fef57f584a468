/**
 * `leveldap bench-schemes`: what a stronger hash costs. For each scheme and its parameters: users
 * imported, a server started, authrate run for D seconds; a Markdown table on stdout and an SVG
 * chart. `--compare-slapd` runs the same against OpenLDAP slapd. `--bind-cache-ttl` serves with
 * the verified-bind cache. `--micro`: only the cost of each scheme per encode and verify on one core.
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
  rounds: number;
  'compare-slapd': boolean;
  'bind-cache-ttl': number;
  'hash-budget': number;
  svg: string;
}

/** OWASP's first Argon2id setting (m=19 MiB, t=2, p=1); also the returning users' case. */
const ARGON2_OWASP = 'ARGON2:memory=19456,time=2,parallelism=1';

/**
 * SSHA, SSHA512, PBKDF2-SHA256 at three costs, Argon2id at OWASP's setting and at RFC 9106's
 * second recommendation (m=64 MiB, t=3, p=4), bcrypt cost 10 and 12, yescrypt at libxcrypt's
 * default, SHA-512-crypt at its default 5,000 rounds and at OWASP's 656,000 (as {CRYPT}, which slapd
 * verifies too); plugin schemes are added to these.
 */
const DEFAULT_CASES = ['SSHA', 'SSHA512', 'PBKDF2-SHA256:1000', 'PBKDF2-SHA256:10000', 'PBKDF2-SHA256:100000',
  ARGON2_OWASP, 'ARGON2:memory=65536,time=3,parallelism=4', 'BCRYPT:cost=10', 'BCRYPT:cost=12',
  'CRYPT', 'CRYPT:rounds=5000', 'CRYPT:rounds=656000'];

/** The default run's returning users: this TTL, and as many users as connections, each binding again and again. */
const RETURNING_TTL = 600;
const RETURNING_CASES = ['SSHA512', ARGON2_OWASP];

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
const fullRun = async () => ({
  ...(await import('../../bench-schemes/bench.js')), ...(await import('../../bench-schemes/report.js')), ...(await import('../../bench-schemes/servers.js')),
});

/**
 * The cases asked for, or the defaults plus every scheme the plugins added; with --bind-cache-ttl,
 * each served with the cache. The default run without it ends with the returning users' rows.
 */
async function cases(args: BenchArgs, parseCase: (text: string) => SchemeCase): Promise<SchemeCase[]> {
  const registry = await registryFromOptions(args);
  const pluginSchemes = registry.list().filter((entry) => entry.origin !== 'built-in' && entry.scheme.encode).map((entry) => entry.scheme.names[0]!);
  const texts = args.scheme ?? [...DEFAULT_CASES, ...pluginSchemes];
  const ttl = args['bind-cache-ttl'];
  const parsed = (text: string): SchemeCase => {
    try {
      const item = parseCase(text);
      registry.require(item.scheme);
      registry.validateParams(item.scheme, item.params ?? {});
      return item;
    } catch (error) {
      throw new CliError(`--scheme ${text}: ${errorMessage(error)}`);
    }
  };
  const selected = texts.map((text) => ({ ...parsed(text), ...(ttl > 0 ? { bindCacheTtl: ttl } : {}) }));
  if (args.scheme || ttl > 0) return selected;
  return [...selected, ...RETURNING_CASES.map((text) => ({ ...parsed(text), bindCacheTtl: RETURNING_TTL, users: args.connections }))];
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

function describeMachine(args: BenchArgs, slapd: { threads: number; logLevel: string } | undefined): string {
  const cpu = os.cpus();
  return `${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, Node ${process.version}; `
    + `up to ${args.users} users (costly cases: what ${os.availableParallelism()} cores hash in ${args['hash-budget']} s), `
    + `authrate -c ${args.connections} -f, ${args.duration} s after ${args['warm-up']} s warm-up`
    + (args.rounds > 1 ? `, ${args.rounds} rounds a server (alternating; the median round shown)` : '')
    + (slapd ? `; slapd threads ${slapd.threads}, loglevel ${slapd.logLevel}` : '');
}

async function full(args: BenchArgs): Promise<void> {
  if (args['compare-slapd'] && !slapdAvailable()) throw new CliError('--compare-slapd: slapd, slapadd or ldapwhoami is not installed');
  const { parseCase, runsOnSlapd, runSchemeBench, markdownTable, tableNotes, svgChart, slapdSettings } = await fullRun();
  const selected = await cases(args, parseCase);
  const compareSlapd = args['compare-slapd'];
  const stages = selected.reduce((sum, item) => sum + 2 + args.rounds * (runsOnSlapd(item, compareSlapd) ? 2 : 1), 0);
  const progress = progressBar(stages);
  const cores = os.availableParallelism();
  const results = await runSchemeBench({
    cases: selected, users: args.users, hashBudgetSeconds: args['hash-budget'], seconds: args.duration, warmUpSeconds: args['warm-up'],
    connections: args.connections, rounds: args.rounds, compareSlapd, plugins: args['scheme-plugin'] ?? [], cores, onStage: progress.stage,
  }).finally(() => progress.stop());
  const caption = describeMachine(args, compareSlapd ? slapdSettings(cores) : undefined);
  await writeFile(args.svg, svgChart(results, caption));
  const notes = tableNotes(results, cores).map((note) => `- ${note}\n`).join('');
  process.stdout.write(`${caption}\n\n${markdownTable(results)}${notes ? `\n${notes}` : ''}\nChart: ${args.svg}\n`);
}

async function handler(args: BenchArgs): Promise<void> {
  for (const name of ['users', 'duration', 'connections', 'hash-budget'] as const) {
    if (!(args[name] > 0)) throw new CliError(`--${name} must be positive`);
  }
  if (!(Number.isInteger(args.rounds) && args.rounds >= 1 && args.rounds <= 100)) throw new CliError('--rounds must be a whole number from 1 to 100');
  if (!args.micro && args.users < args.connections) throw new CliError(`--users (${args.users}) must be at least --connections (${args.connections})`);
  const ttl = args['bind-cache-ttl'];
  if (!(Number.isInteger(ttl) && ttl >= 0 && ttl <= 86_400)) throw new CliError('--bind-cache-ttl must be a whole number of seconds from 0 to 86400');
  await (args.micro ? micro(args) : full(args));
}

export const benchSchemesCommand: CommandModule<object, BenchArgs> = {
  command: 'bench-schemes',
  describe: 'what a stronger hash costs: binds/s and tail latency per scheme and cost (Markdown table + SVG chart)',
  builder: (yargs: Argv) => withSchemeOptions(yargs)
    .option('scheme', {
      type: 'string', array: true, requiresArg: true,
      describe: `SCHEME, SCHEME:ITERATIONS or SCHEME:NAME=VALUE,... (repeatable; default ${DEFAULT_CASES.join(' ')}, plugin schemes, `
        + `then ${RETURNING_CASES.join(' and ')} with --bind-cache-ttl ${RETURNING_TTL} and --connections users)`,
    })
    .option('users', { type: 'number', default: 1000, requiresArg: true, describe: 'users to import (at most; at least --connections)' })
    .option('hash-budget', { type: 'number', default: 20, requiresArg: true, describe: 'seconds of all cores that making one case\'s users may take: costly cases get fewer users (never fewer than --connections)' })
    .option('bind-cache-ttl', { type: 'number', default: 0, requiresArg: true, describe: 'serve every case with leveldap serve --bind-cache-ttl S (leveldap only: slapd has no such cache)' })
    .option('duration', { alias: 'd', type: 'number', default: 10, requiresArg: true, describe: 'seconds of authrate per server and scheme' })
    .option('warm-up', { type: 'number', default: 2, requiresArg: true, describe: 'seconds of binds before counting' })
    .option('connections', { alias: 'c', type: 'number', default: 32, requiresArg: true, describe: 'authrate connections' })
    .option('rounds', { type: 'number', default: 1, requiresArg: true, describe: 'measure each server this many times, alternating which goes first; show the median round' })
    .option('compare-slapd', { type: 'boolean', default: false, describe: 'run the same against OpenLDAP slapd (installed) and show it beside' })
    .option('svg', { type: 'string', default: 'bench-schemes.svg', requiresArg: true, describe: 'where to write the chart' })
    .option('micro', { type: 'boolean', default: false, describe: 'only µs per encode and verify on one core, no server' })
    .option('millis', { type: 'number', default: 1000, describe: '--micro: measure each operation for at least this long' })
    .option('json', { type: 'boolean', default: false, describe: '--micro: print JSON' }) as Argv<BenchArgs>,
  handler,
};
