/**
 * The server's limits for `serve`: one flag per entry of LIMIT_FLAGS (limit-keys.ts), and the same
 * as a key of the --config file ("sizeLimit": 500); a flag overrides the file, and both
 * DEFAULT_LIMITS (src/server/config.ts). A value that is not a whole number in range is a usage
 * error (CliError, exit status 2). docs/limits.md describes every limit with its default and
 * what OpenLDAP and 389 Directory Server do.
 */
import type { Argv } from 'yargs';
import { DEFAULT_LIMITS, type Limits } from '../../server/index.js';
import { CliError } from '../support/errors.js';
import { LIMIT_FLAGS, defaultOf, type LimitFlag } from './limit-keys.js';
import { readJson } from './policy.js';

/**
 * Every limit flag, its default in the description (not as yargs' default: a flag left out must
 * let the --config file's key apply).
 */
export function withLimitOptions<T>(yargs: Argv<T>): Argv<T> {
  let result = yargs;
  for (const limit of LIMIT_FLAGS) {
    const fallback = defaultOf(limit);
    const describe = fallback === undefined ? limit.describe : `${limit.describe} [default: ${fallback}]`;
    result = result.option(limit.flag, { type: 'number', requiresArg: true, describe });
  }
  return result.group(LIMIT_FLAGS.map(({ flag }) => flag), 'Limits:');
}

/** The limit keys of the --config file's JSON object. */
async function fileLimits(file: string | undefined): Promise<Readonly<Record<string, unknown>>> {
  if (file === undefined) return {};
  const data = await readJson(file);
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? data as Record<string, unknown> : {};
}

/** The value if it is a whole number in the limit's range, else a usage error naming `where`. */
function checkedLimit(limit: LimitFlag, value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= limit.min && value <= limit.max) return value;
  const shown = typeof value === 'number' ? (Number.isNaN(value) ? 'needs a number' : String(value)) : JSON.stringify(value);
  throw new CliError(`${where} ${shown}: a whole number from ${limit.min} to ${limit.max}`);
}

/** The limits: DEFAULT_LIMITS, then the --config file's keys, then the flags; checked. */
export async function limitsFromOptions(options: Readonly<Record<string, unknown>>, configFile?: string): Promise<Limits> {
  const file = await fileLimits(configFile);
  const limits: Record<string, unknown> = { ...DEFAULT_LIMITS };
  for (const limit of LIMIT_FLAGS) {
    const flag = options[limit.flag];
    if (flag !== undefined) limits[limit.key] = checkedLimit(limit, flag, `--${limit.flag}`);
    else if (file[limit.key] !== undefined) limits[limit.key] = checkedLimit(limit, file[limit.key], `--config ${configFile}: "${limit.key}"`);
  }
  const checked = limits as unknown as Limits;
  if (checked.reservedConnections >= checked.maxConnections) {
    throw new CliError(`--reserved-connections ${checked.reservedConnections}: fewer than --max-connections (${checked.maxConnections})`);
  }
  return checked;
}
