/**
 * The password policy on the command line: one flag per setting of POLICY_SETTINGS
 * (src/policy/settings.ts) for `serve`, and `--config FILE`, a JSON object with the same
 * settings under their camelCase keys, for `serve` and `import-ldif`. Flags override the file,
 * the file overrides the defaults (DEFAULT_POLICY). An unknown key, a value of the wrong kind or
 * out of range, an unreadable file or bad JSON is a usage error (CliError, exit status 2).
 */
import { readFile } from 'node:fs/promises';
import type { Argv, Options } from 'yargs';
import { DEFAULT_POLICY, POLICY_SETTINGS, flagOf, settingProblem, type PasswordPolicy, type PolicySetting } from '../../policy/index.js';
import { dirname, resolve } from 'node:path';
import { CliError } from '../support/errors.js';
import { parseParams } from './schemes.js';
import { errorMessage, errorCode } from '../../errors.js';
import { MONITORING_KEYS } from './monitoring-keys.js';
import { STORE_KEYS } from './store-keys.js';
import { LIMIT_KEYS } from './limit-keys.js';

export interface PolicyFileOption {
  config?: string;
}

/** The policy flags as yargs parses them (by flag name), and --config. */
export type PolicyOptions = PolicyFileOption & Record<string, unknown>;

const CONFIG_OPTION: Options = { type: 'string', requiresArg: true, describe: 'JSON file of password policy settings (flags override it)' };

function defaultText(setting: PolicySetting): string {
  const value = DEFAULT_POLICY[setting.key];
  if (value === undefined) return '';
  return Array.isArray(value) ? (value.length === 0 ? ' (default: none)' : ` (default: ${value.join(',')})`) : ` (default: ${String(value)})`;
}

function optionOf(setting: PolicySetting): Options {
  const describe = `${setting.describe}${defaultText(setting)}`;
  if (setting.kind === 'boolean') return { type: 'boolean', describe };
  const text = setting.kind === 'scheme' || setting.kind === 'schemes' || setting.kind === 'params';
  return { type: text ? 'string' : 'number', requiresArg: true, describe };
}

const FLAG_SETTINGS = POLICY_SETTINGS.filter((setting) => !setting.fileOnly);

/** --config and every policy flag, without yargs defaults (so that "not given" is seen and the file can fill in). */
export function withPolicyOptions<T>(yargs: Argv<T>): Argv<T & PolicyOptions> {
  let result = yargs.option('config', CONFIG_OPTION);
  for (const setting of FLAG_SETTINGS) result = result.option(flagOf(setting.key), optionOf(setting));
  return result.group(['config', ...FLAG_SETTINGS.map((setting) => flagOf(setting.key))], 'Password policy:') as Argv<T & PolicyOptions>;
}

/** --config alone (import-ldif takes its import scheme and iterations from it). */
export function withPolicyFileOption<T>(yargs: Argv<T>): Argv<T & PolicyFileOption> {
  return yargs.option('config', CONFIG_OPTION) as Argv<T & PolicyFileOption>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKey(file: string, key: string): CliError {
  const meant = POLICY_SETTINGS.find((setting) => flagOf(setting.key) === key.toLowerCase() || setting.key.toLowerCase() === key.toLowerCase());
  const hint = meant ? ` (did you mean "${meant.key}"?)` : '';
  return new CliError(`--config ${file}: unknown setting "${key}"${hint}; known: ${POLICY_SETTINGS.map((setting) => setting.key).join(', ')}`);
}

/** The --config file's JSON (a usage error if it cannot be read or parsed). */
export async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read --config file ${file}: ${errorCode(error) ?? String(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`--config ${file} is not valid JSON: ${errorMessage(error)}`);
  }
}

/** Keys of the config file that are not password policy: the schema files serve loads (--schema), monitoring (monitoring.ts), the store (store.ts), the limits (limits.ts). */
const SERVER_KEYS = new Set(['schema', ...MONITORING_KEYS, ...STORE_KEYS, ...LIMIT_KEYS]);

/** The "schema" key of a config file: the files, relative to the config file's folder. */
export async function schemaFilesOf(file: string | undefined): Promise<string[]> {
  if (file === undefined) return [];
  const data = await readJson(file);
  const files = isObject(data) ? data.schema : undefined;
  if (files === undefined) return [];
  if (!Array.isArray(files) || !files.every((item) => typeof item === 'string' && item !== '')) {
    throw new CliError(`--config ${file}: "schema" must be a list of schema file paths, not ${JSON.stringify(files)}`);
  }
  return files.map((item) => resolve(dirname(file), item));
}

/** The settings a config file gives, checked. */
export async function readPolicyFile(file: string): Promise<Partial<PasswordPolicy>> {
  const data = await readJson(file);
  if (!isObject(data)) throw new CliError(`--config ${file}: expected a JSON object of password policy settings`);
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (SERVER_KEYS.has(key)) continue;
    const setting = POLICY_SETTINGS.find((candidate) => candidate.key === key);
    if (!setting) throw unknownKey(file, key);
    const problem = settingProblem(setting, value);
    if (problem) throw new CliError(`--config ${file}: "${key}" ${problem}, not ${JSON.stringify(value)}`);
    settings[key] = value;
  }
  return settings as Partial<PasswordPolicy>;
}

/** A flag's text as the setting's value: a scheme list comma-separated, parameters as NAME=VALUE,... */
function flagValue(setting: PolicySetting, given: unknown): unknown {
  if (typeof given !== 'string') return given;
  if (setting.kind === 'schemes') return given.split(',').map((name) => name.trim()).filter((name) => name !== '');
  return setting.kind === 'params' ? parseParams(given) : given;
}

/** The settings given as flags, checked; a scheme list is comma-separated. */
function flagSettings(options: PolicyOptions): Partial<PasswordPolicy> {
  const settings: Record<string, unknown> = {};
  for (const setting of FLAG_SETTINGS) {
    const flag = flagOf(setting.key);
    const given = options[flag];
    if (given === undefined) continue;
    const value = flagValue(setting, given);
    const problem = settingProblem(setting, value);
    if (problem) throw new CliError(`--${flag} ${problem}${Number.isNaN(given) ? '' : `, not ${String(given)}`}`);
    settings[setting.key] = value;
  }
  return settings as Partial<PasswordPolicy>;
}

/** The policy: defaults, then the --config file, then the flags. */
export async function policyFromOptions(options: PolicyOptions): Promise<PasswordPolicy> {
  const file = options.config === undefined ? {} : await readPolicyFile(options.config);
  return { ...DEFAULT_POLICY, ...file, ...flagSettings(options) };
}
