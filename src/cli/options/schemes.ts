/** Options shared by every command that hashes or verifies passwords. */
import type { Argv } from 'yargs';
import { createRegistry, DEFAULT_MAX_ITERATIONS, loadSchemePlugins, type Logger, type SchemeRegistry } from '../../password/index.js';

export interface SchemeOptions {
  'scheme-plugin'?: string[];
  'max-iterations': number;
}

export function withSchemeOptions<T>(yargs: Argv<T>): Argv<T & SchemeOptions> {
  return yargs
    .option('scheme-plugin', {
      type: 'string', array: true, requiresArg: true,
      describe: 'load extra password schemes from this ES module file (repeatable)',
    })
    .option('max-iterations', {
      type: 'number', default: DEFAULT_MAX_ITERATIONS, requiresArg: true,
      describe: 'refuse stored values (and writes) asking for more iterations than this',
    }) as Argv<T & SchemeOptions>;
}

/** Log lines of the registry, for a command-line tool: plain text on stderr. */
const stderrLogger: Logger = {
  warn: (_fields, message) => process.stderr.write(`leveldap: ${message}\n`),
};

export async function registryFromOptions(options: SchemeOptions, logger: Logger = stderrLogger): Promise<SchemeRegistry> {
  const registry = createRegistry({ maxIterations: options['max-iterations'], logger });
  await loadSchemePlugins(registry, options['scheme-plugin'] ?? []);
  return registry;
}

/** Scheme parameters from the command line, leaving out the ones not given. */
export function schemeParams(given: { iterations?: number; saltLength?: number }): Record<string, number> {
  const params: Record<string, number> = {};
  if (given.iterations !== undefined) params.iterations = given.iterations;
  if (given.saltLength !== undefined) params.saltLength = given.saltLength;
  return params;
}
