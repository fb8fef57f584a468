/**
 * Monitoring on the command line of `serve`: --monitor-access (who reads cn=Monitor),
 * --metrics-port and --metrics-host (the Prometheus endpoint, off unless a port is given). The
 * --config file may hold the same as "monitorAccess", "metricsPort" and "metricsHost"; flags
 * override it. A wrong value is a usage error (CliError, exit status 2).
 */
import type { Argv } from 'yargs';
import { MONITOR_ACCESS_CHOICES, type MetricsOptions, type MonitorAccess } from '../../server/index.js';
import { CliError } from '../support/errors.js';
import { readJson } from './policy.js';
import type { MonitoringKey } from './monitoring-keys.js';
import { checkedPort } from './port.js';

export interface MonitoringOptions {
  'monitor-access'?: string;
  'metrics-port'?: number;
  'metrics-host'?: string;
}

export const DEFAULT_METRICS_HOST = '127.0.0.1';

export function withMonitoringOptions<T>(yargs: Argv<T>): Argv<T & MonitoringOptions> {
  return yargs
    .option('monitor-access', { type: 'string', requiresArg: true, choices: MONITOR_ACCESS_CHOICES, describe: 'who may read cn=Monitor (default: admin)' })
    .option('metrics-port', { type: 'number', requiresArg: true, describe: 'serve Prometheus metrics, /healthz and /readyz over HTTP on this port (default: off; 0: any free port)' })
    .option('metrics-host', { type: 'string', requiresArg: true, describe: `address of the metrics endpoint (default: ${DEFAULT_METRICS_HOST})` })
    .group(['monitor-access', 'metrics-port', 'metrics-host'], 'Monitoring:') as Argv<T & MonitoringOptions>;
}

/** What monitoring serve runs with. */
export interface Monitoring {
  readonly monitorAccess: MonitorAccess;
  readonly metrics?: MetricsOptions;
}

async function fileSettings(file: string | undefined): Promise<Partial<Record<MonitoringKey, unknown>>> {
  if (file === undefined) return {};
  const data = await readJson(file);
  return typeof data === 'object' && data !== null ? data as Partial<Record<MonitoringKey, unknown>> : {};
}

function checkedAccess(value: unknown, where: string): MonitorAccess {
  if (typeof value === 'string' && (MONITOR_ACCESS_CHOICES as readonly string[]).includes(value)) return value as MonitorAccess;
  throw new CliError(`${where}: one of ${MONITOR_ACCESS_CHOICES.join(', ')}, not ${JSON.stringify(value)}`);
}

function checkedHost(value: unknown, where: string): string {
  if (typeof value === 'string' && value !== '') return value;
  throw new CliError(`${where}: an address, not ${JSON.stringify(value)}`);
}

/** Monitoring from the flags, then the --config file, then the defaults. */
export async function monitoringFromOptions(options: MonitoringOptions, configFile: string | undefined): Promise<Monitoring> {
  const file = await fileSettings(configFile);
  const pick = <T>(flag: keyof MonitoringOptions, key: MonitoringKey, check: (value: unknown, where: string) => T): T | undefined => {
    if (options[flag] !== undefined) return check(options[flag], `--${flag}`);
    return file[key] === undefined ? undefined : check(file[key], `--config ${configFile}: "${key}"`);
  };
  const monitorAccess = pick('monitor-access', 'monitorAccess', checkedAccess) ?? 'admin';
  const port = pick('metrics-port', 'metricsPort', checkedPort);
  const host = pick('metrics-host', 'metricsHost', checkedHost) ?? DEFAULT_METRICS_HOST;
  return { monitorAccess, ...(port !== undefined && { metrics: { port, host } }) };
}
