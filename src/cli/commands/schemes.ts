/** `leveldap schemes`: the registered password storage schemes and their parameters. */
import type { Argv, CommandModule } from 'yargs';
import type { ParamSpec, PasswordScheme } from '../../../schemes/scheme.js';
import { MAX_LANES, type RegisteredScheme, type SchemeRegistry } from '../../password/index.js';
import { DEFAULT_SCHEME } from '../../policy/index.js';
import { registryFromOptions, withSchemeOptions, type SchemeOptions } from '../options/schemes.js';
import { formatTable } from '../support/table.js';

interface SchemesArgs extends SchemeOptions {
  json: boolean;
}

function describeParam(spec: ParamSpec, registry: SchemeRegistry): string {
  return `${spec.name}=${spec.default} (${spec.min}..${registry.maxOf(spec)})`;
}

const isDefault = (scheme: PasswordScheme): boolean => scheme.names.some((name) => name.toUpperCase() === DEFAULT_SCHEME);

function row(entry: RegisteredScheme, registry: SchemeRegistry): string[] {
  const { scheme } = entry;
  const params = (scheme.params ?? []).map((spec) => describeParam(spec, registry)).join(', ');
  return [
    scheme.names.join(', ') + (isDefault(scheme) ? ' (default)' : ''),
    scheme.unavailable !== undefined ? 'unavailable' : scheme.encode ? 'encode+verify' : 'verify only',
    params || '-',
    entry.origin,
    scheme.description,
  ];
}

async function handler(args: SchemesArgs): Promise<void> {
  const registry = await registryFromOptions(args);
  const entries = registry.list();
  if (args.json) {
    const json = entries.map(({ scheme, origin }) => ({
      names: scheme.names, encodes: Boolean(scheme.encode), params: scheme.params ?? [], origin,
      description: scheme.description, default: isDefault(scheme), ...(scheme.unavailable !== undefined && { unavailable: scheme.unavailable }),
    }));
    process.stdout.write(`${JSON.stringify({ maxIterations: registry.maxIterations, limits: registry.limits, schemes: json }, null, 2)}\n`);
    return;
  }
  const header = ['SCHEME', 'CAN', 'PARAMETERS (default, range)', 'FROM', 'FORMAT'];
  process.stdout.write(formatTable([header, ...entries.map((entry) => row(entry, registry))]));
  for (const { scheme } of entries.filter((entry) => entry.scheme.unavailable !== undefined)) {
    process.stdout.write(`\n{${scheme.names[0]}} is unavailable: ${scheme.unavailable}`);
  }
  const { maxIterations, maxHashMemoryMiB, maxHashPasses, maxBcryptCost } = registry.limits;
  process.stdout.write(`\nStored values asking for more than ${maxIterations} iterations (--max-iterations), ${maxHashMemoryMiB} MiB of memory `
    + `(--max-hash-memory), ${maxHashPasses} passes (--max-hash-passes), bcrypt cost ${maxBcryptCost} (--max-bcrypt-cost) or ${MAX_LANES} Argon2 lanes are refused.\n`);
}

export const schemesCommand: CommandModule<object, SchemesArgs> = {
  command: 'schemes',
  describe: 'list the registered password storage schemes, their parameters and defaults',
  builder: (yargs: Argv) => withSchemeOptions(yargs).option('json', { type: 'boolean', default: false, describe: 'print JSON' }) as Argv<SchemesArgs>,
  handler,
};
