/** Options shared by every command that hashes or verifies passwords. */
import type { Argv } from 'yargs';
import { CliError } from '../support/errors.js';
import { createRegistry, DEFAULT_HASH_LIMITS, HashMemoryBudget, loadSchemePlugins, type Logger, type SchemeRegistry } from '../../password/index.js';

export interface SchemeOptions {
  'scheme-plugin'?: string[];
  'max-iterations': number;
  'max-hash-memory': number;
  'max-hash-passes': number;
  'max-bcrypt-cost': number;
  'hash-memory-budget': number;
}

export function withSchemeOptions<T>(yargs: Argv<T>): Argv<T & SchemeOptions> {
  return yargs
    .option('scheme-plugin', {
      type: 'string', array: true, requiresArg: true,
      describe: 'load extra password schemes from this ES module file (repeatable)',
    })
    .option('max-iterations', {
      type: 'number', default: DEFAULT_HASH_LIMITS.maxIterations, requiresArg: true,
      describe: 'refuse stored values (and writes) asking for more iterations (PBKDF2) or rounds (SHA-crypt) than this',
    })
    .option('max-hash-memory', {
      type: 'number', default: DEFAULT_HASH_LIMITS.maxHashMemoryMiB, requiresArg: true,
      describe: 'refuse stored values (and writes) whose one verification takes more MiB of memory than this (Argon2, yescrypt)',
    })
    .option('max-hash-passes', {
      type: 'number', default: DEFAULT_HASH_LIMITS.maxHashPasses, requiresArg: true,
      describe: 'refuse stored values (and writes) asking for more passes over their memory than this (Argon2 t, yescrypt t)',
    })
    .option('max-bcrypt-cost', {
      type: 'number', default: DEFAULT_HASH_LIMITS.maxBcryptCost, requiresArg: true,
      describe: 'refuse stored bcrypt values (and writes) of a higher cost than this',
    })
    .option('hash-memory-budget', {
      type: 'number', default: 0, requiresArg: true,
      describe: 'MiB that memory-hard verifications (Argon2, yescrypt) may hold at once; more wait their turn (0: one per core x the largest cost in use)',
    }) as Argv<T & SchemeOptions>;
}

function memoryBudgetMiB(given: number): number {
  if (!Number.isSafeInteger(given) || given < 0 || given > 1_048_576) throw new CliError(`--hash-memory-budget must be a whole number of MiB from 0 (auto) to 1048576, not ${given}`);
  return given;
}

/** Log lines of the registry, for a command-line tool: plain text on stderr. */
const stderrLogger: Logger = {
  warn: (_fields, message) => process.stderr.write(`leveldap: ${message}\n`),
};

export async function registryFromOptions(options: SchemeOptions, logger: Logger = stderrLogger): Promise<SchemeRegistry> {
  const registry = createRegistry({
    maxIterations: options['max-iterations'], maxHashMemoryMiB: options['max-hash-memory'],
    maxHashPasses: options['max-hash-passes'], maxBcryptCost: options['max-bcrypt-cost'], logger,
    memoryBudget: HashMemoryBudget.allocate(memoryBudgetMiB(options['hash-memory-budget'])),
  });
  await loadSchemePlugins(registry, options['scheme-plugin'] ?? []);
  return registry;
}

export interface ParamOption {
  /** One string, or an array when the flag is repeated (not a yargs array: that would take the positional after it). */
  param?: string | string[];
}

/** --param NAME=VALUE, for the commands that hash: any parameter `leveldap schemes` lists. */
export function withParamOption<T>(yargs: Argv<T>): Argv<T & ParamOption> {
  return yargs.option('param', {
    type: 'string', requiresArg: true,
    describe: 'a scheme parameter as NAME=VALUE, e.g. memory=65536 (repeatable, or comma-separated; see leveldap schemes)',
  }) as Argv<T & ParamOption>;
}

/** NAME=VALUE pairs (repeated or comma-separated) as parameters; a CliError for anything else. */
export function parseParams(given: string | readonly string[]): Record<string, number> {
  const params: Record<string, number> = {};
  for (const pair of [given].flat().flatMap((text) => text.split(',')).map((text) => text.trim()).filter((text) => text !== '')) {
    const match = /^([A-Za-z][A-Za-z0-9]*)=([0-9]{1,15})$/.exec(pair);
    if (!match) throw new CliError(`a scheme parameter is NAME=VALUE with a whole number, e.g. memory=65536, not "${pair}"`);
    params[match[1]!] = Number(match[2]);
  }
  return params;
}

/** Scheme parameters from the command line, leaving out the ones not given. */
export function schemeParams(given: { iterations?: number; saltLength?: number; param?: string | readonly string[] }): Record<string, number> {
  const params = parseParams(given.param ?? []);
  if (given.iterations !== undefined) params.iterations = given.iterations;
  if (given.saltLength !== undefined) params.saltLength = given.saltLength;
  return params;
}
