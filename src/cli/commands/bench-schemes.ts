/** `leveldap bench-schemes --micro`: what each scheme costs per encode and per verify, on one core. */
import type { Argv, CommandModule } from 'yargs';
import { benchScheme, benchmarkableSchemes, type SchemeTiming } from '../../bench/scheme-micro.js';
import { formatMicros, formatRate } from '../../bench/timing.js';
import { CliError } from '../errors.js';
import { registryFromOptions, withSchemeOptions, type SchemeOptions } from '../scheme-options.js';
import { formatTable } from '../table.js';

interface BenchArgs extends SchemeOptions {
  micro: boolean;
  scheme?: string[];
  millis: number;
  json: boolean;
}

function row(timing: SchemeTiming): string[] {
  return [
    timing.scheme, timing.params || '-',
    formatMicros(timing.encode.microsPerOp), formatRate(timing.encode.opsPerSecond),
    formatMicros(timing.verify.microsPerOp), formatRate(timing.verify.opsPerSecond),
  ];
}

async function handler(args: BenchArgs): Promise<void> {
  if (!args.micro) throw new CliError('only --micro is implemented: per-scheme cost on one core');
  const registry = await registryFromOptions(args);
  const options = { minMillis: args.millis, minOperations: 5 };
  const header = ['SCHEME', 'PARAMS', 'ENCODE µs', 'ENCODE/s', 'VERIFY µs', 'VERIFY/s'];
  const rows: string[][] = [];
  const timings: SchemeTiming[] = [];
  for (const name of benchmarkableSchemes(registry, args.scheme ?? [])) {
    const timing = await benchScheme(registry, name, options);
    timings.push(timing);
    rows.push(row(timing));
    if (!args.json) process.stderr.write(`measured {${timing.scheme}}\n`);
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(timings, null, 2)}\n`);
    return;
  }
  process.stdout.write(formatTable([header, ...rows], new Set([2, 3, 4, 5])));
  process.stdout.write('One operation at a time (one core); PBKDF2 runs in the libuv thread pool. Node ' + process.version + '\n');
}

export const benchSchemesCommand: CommandModule<object, BenchArgs> = {
  command: 'bench-schemes',
  describe: 'micro-benchmark the password schemes: µs and ops/s per encode and verify on one core',
  builder: (yargs: Argv) => withSchemeOptions(yargs)
    .option('micro', { type: 'boolean', default: false, describe: 'per-scheme cost on one core (required)' })
    .option('scheme', { type: 'string', array: true, requiresArg: true, describe: 'only these schemes' })
    .option('millis', { type: 'number', default: 1000, describe: 'measure each operation for at least this long' })
    .option('json', { type: 'boolean', default: false, describe: 'print JSON' }) as Argv<BenchArgs>,
  handler,
};
