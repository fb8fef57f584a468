/**
 * authrate's command line (OpenDJ/PingDS names and defaults, see formats.md 2.1), parsed with
 * yargs and checked into an {@link AuthrateConfig}. Every mistake is an {@link AuthrateUsageError}
 * (exit status 89, as OpenDJ's tools use for argument errors).
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { GeneratorError, parseGenerator, type GeneratorFactory } from './generators.js';
import { TemplateError, argumentsUsed, compileTemplate, type Template } from './template.js';

/** OpenDJ's exit status for a bad argument (ERR_... CLIENT_SIDE_PARAM_ERROR). */
export const USAGE_EXIT_CODE = 89;

export const DEFAULT_PERCENTILES: readonly number[] = [99.9, 99.99, 99.999];

export class AuthrateUsageError extends Error {
  override name = 'AuthrateUsageError';
}

export interface AuthrateConfig {
  readonly host: string;
  readonly port: number;
  readonly useSsl: boolean;
  readonly trustAll: boolean;
  /** The -D template as given, and compiled. */
  readonly bindDnTemplate: string;
  readonly bindDn: Template;
  readonly password: Buffer;
  readonly connections: number;
  readonly keepConnectionsOpen: boolean;
  /** One factory per -g, in order; each worker makes its own generators. */
  readonly generators: readonly GeneratorFactory[];
  /** Seconds; 0 = no limit. */
  readonly maxDuration: number;
  /** Counted operations in all; 0 = no limit. */
  readonly maxIterations: number;
  readonly statInterval: number;
  readonly warmUpDuration: number;
  /** ops/s over all connections; 0 = as fast as possible. */
  readonly targetThroughput: number;
  readonly percentiles: readonly number[];
  /** Percent of binds with the password "invalid-password". */
  readonly invalidPassword: number;
  readonly scriptFriendly: boolean;
  readonly json: boolean;
}

type Raw = Record<string, unknown>;

function fail(message: string): never {
  throw new AuthrateUsageError(message);
}

/** A repeated option is an array, a single one a value; either way a list of strings. */
function list(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** The last value when an option was given twice. */
function single(value: unknown): unknown {
  return Array.isArray(value) ? value.at(-1) : value;
}

function number(raw: Raw, name: string, flag: string, check: (n: number) => boolean, what: string): number {
  const text = String(single(raw[name]));
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !check(value)) fail(`${flag}: "${text}" is not ${what}`);
  return value;
}

const isNonNegativeInteger = (n: number) => Number.isInteger(n) && n >= 0;
const isPositiveInteger = (n: number) => Number.isInteger(n) && n >= 1;
const isPercent = (n: number) => n >= 0 && n <= 100;

function readPasswordFile(file: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    fail(`-j: cannot read password file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const end = bytes.indexOf(0x0a);
  const line = end < 0 ? bytes : bytes.subarray(0, end);
  return line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
}

function password(raw: Raw): Buffer {
  const given = [['-w', raw['bindPassword']], ['-j', raw['bindPasswordFile']], ['--bindPasswordEnv', raw['bindPasswordEnv']]]
    .filter(([, value]) => value !== undefined);
  if (given.length === 0) fail('a bind password is needed: -w PASSWORD, -j FILE or --bindPasswordEnv NAME');
  if (given.length > 1) fail(`give the bind password one way only, not ${given.map(([flag]) => flag).join(' and ')}`);
  if (raw['bindPassword'] !== undefined) return Buffer.from(String(single(raw['bindPassword'])), 'utf8');
  if (raw['bindPasswordFile'] !== undefined) return readPasswordFile(String(single(raw['bindPasswordFile'])));
  const name = String(single(raw['bindPasswordEnv']));
  const value = process.env[name];
  if (value === undefined) fail(`--bindPasswordEnv: the environment variable ${name} is not set`);
  return Buffer.from(value, 'utf8');
}

function generators(raw: Raw): GeneratorFactory[] {
  try {
    return list(raw['argument']).map((spec) => parseGenerator(spec));
  } catch (error) {
    if (error instanceof GeneratorError) fail(`-g ${error.message}`);
    throw error;
  }
}

function bindDn(raw: Raw, argumentCount: number): { template: string; compiled: Template } {
  const template = raw['bindDN'] === undefined ? fail('no bind DN: -D (--bindDN) is required') : String(single(raw['bindDN']));
  try {
    const needed = argumentsUsed(template);
    if (needed > argumentCount) fail(`-D "${template}" uses ${needed} argument(s) but ${argumentCount} -g given`);
    return { template, compiled: compileTemplate(template) };
  } catch (error) {
    if (error instanceof TemplateError) fail(`-D ${error.message}`);
    throw error;
  }
}

function percentiles(raw: Raw): number[] {
  const given = list(raw['percentile']);
  if (given.length === 0) return [...DEFAULT_PERCENTILES];
  return given.map((text) => {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || !isPercent(value)) fail(`-e: "${text}" is not a percentile in 0..100`);
    return value;
  });
}

function checkIterations(maxIterations: number, connections: number): void {
  if (maxIterations > 0 && Math.floor(maxIterations / connections) === 0) {
    fail(`-m ${maxIterations} is fewer than one iteration per connection (-c ${connections})`);
  }
}

function toConfig(raw: Raw): AuthrateConfig {
  const positional = list(raw['_']);
  if (positional.length > 0) fail(`unexpected argument(s) ${positional.map((a) => `"${a}"`).join(' ')}: search-then-bind (a filter with -b) is not supported yet`);
  const factories = generators(raw);
  const dn = bindDn(raw, factories.length);
  const connections = number(raw, 'numConnections', '-c', isPositiveInteger, 'a positive integer');
  const maxIterations = number(raw, 'maxIterations', '-m', isNonNegativeInteger, 'a non-negative integer');
  checkIterations(maxIterations, connections);
  return {
    host: String(single(raw['hostname'])),
    port: number(raw, 'port', '-p', (n) => Number.isInteger(n) && n >= 1 && n <= 65535, 'a port number'),
    useSsl: Boolean(raw['useSsl']),
    trustAll: Boolean(raw['trustAll']),
    bindDnTemplate: dn.template,
    bindDn: dn.compiled,
    password: password(raw),
    connections,
    keepConnectionsOpen: Boolean(raw['keepConnectionsOpen']),
    generators: factories,
    maxDuration: number(raw, 'maxDuration', '-d', (n) => n >= 0, 'a duration in seconds'),
    maxIterations,
    statInterval: number(raw, 'statInterval', '-i', (n) => n > 0, 'a positive number of seconds'),
    warmUpDuration: number(raw, 'warmUpDuration', '-B', (n) => n >= 0, 'a duration in seconds'),
    targetThroughput: number(raw, 'targetThroughput', '-M', (n) => n >= 0, 'a rate in ops/second'),
    percentiles: percentiles(raw),
    invalidPassword: number(raw, 'invalidPassword', '-I', isPercent, 'a percentage in 0..100'),
    scriptFriendly: Boolean(raw['scriptFriendly']),
    json: Boolean(raw['json']),
  };
}

function parser(args: readonly string[]) {
  return yargs([...args])
    .scriptName('authrate')
    .usage('$0 -D TEMPLATE (-w PASSWORD | -j FILE | --bindPasswordEnv NAME) [options]\n\nMeasures bind throughput and response time (OpenDJ/PingDS authrate).')
    .parserConfiguration({ 'camel-case-expansion': false })
    .option('hostname', { alias: 'h', type: 'string', default: 'localhost', requiresArg: true, describe: 'server host' })
    .option('port', { alias: 'p', type: 'string', default: '389', requiresArg: true, describe: 'server port' })
    .option('useSsl', { alias: 'Z', type: 'boolean', describe: 'connect with TLS (LDAPS)' })
    .option('trustAll', { alias: 'X', type: 'boolean', describe: 'accept any server certificate' })
    .option('bindDN', { alias: ['D', 'bindDn'], type: 'string', requiresArg: true, describe: 'bind DN template ({} / {N} / %s / %d)' })
    .option('bindPassword', { alias: 'w', type: 'string', requiresArg: true, describe: 'bind password' })
    .option('bindPasswordFile', { alias: 'j', type: 'string', requiresArg: true, describe: 'read the bind password from a file' })
    .option('bindPasswordEnv', { type: 'string', requiresArg: true, describe: 'read the bind password from an environment variable' })
    .option('numConnections', { alias: 'c', type: 'string', default: '1', requiresArg: true, describe: 'connections (one worker each)' })
    .option('keepConnectionsOpen', { alias: 'f', type: 'boolean', describe: 'keep connections open and rebind' })
    .option('argument', { alias: 'g', type: 'string', requiresArg: true, describe: 'template argument: rand(a,b), inc(a,b), rand(file), inc(file), randstr(n[,chars]) or a value (repeatable)' })
    .option('maxDuration', { alias: 'd', type: 'string', default: '0', requiresArg: true, describe: 'stop after this many seconds (0 = no limit)' })
    .option('maxIterations', { alias: 'm', type: 'string', default: '0', requiresArg: true, describe: 'stop after this many binds in all (0 = no limit)' })
    .option('statInterval', { alias: 'i', type: 'string', default: '5', requiresArg: true, describe: 'seconds between statistics lines' })
    .option('warmUpDuration', { alias: 'B', type: 'string', default: '0', requiresArg: true, describe: 'seconds of binds not counted first' })
    .option('targetThroughput', { alias: 'M', type: 'string', default: '0', requiresArg: true, describe: 'target binds/second in all (0 = unthrottled)' })
    .option('percentile', { alias: 'e', type: 'string', requiresArg: true, describe: 'response time percentile to show (repeatable; default 99.9 99.99 99.999)' })
    .option('invalidPassword', { alias: 'I', type: 'string', default: '0', requiresArg: true, describe: 'percent of binds with a wrong password' })
    .option('scriptFriendly', { alias: 'S', type: 'boolean', describe: 'CSV output' })
    .option('json', { type: 'boolean', describe: 'print one JSON summary at the end instead of the table' })
    .strictOptions()
    .version(false)
    .help('help')
    .wrap(null)
    .fail((message, error) => fail(message || error?.message || 'bad arguments'));
}

/** Parses authrate's arguments (without the node and script names). Throws AuthrateUsageError. */
export function parseAuthrateOptions(args: readonly string[]): AuthrateConfig {
  return toConfig(parser(args).parseSync() as Raw);
}
