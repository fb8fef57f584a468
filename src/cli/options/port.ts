/** A port number given on the command line or in a config file: 0 to 65535 (0: any free port), else a usage error. */
import { CliError } from '../support/errors.js';

export function checkedPort(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65_535) return value;
  throw new CliError(`${where}: a port number from 0 to 65535, not ${Number.isNaN(value) ? 'that' : JSON.stringify(value)}`);
}
