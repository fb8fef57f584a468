/**
 * authrate's command line (OpenDJ/PingDS names and defaults, docs/authrate.md), parsed with
 * yargs and checked into an {@link AuthrateConfig}. Every mistake is an {@link AuthrateUsageError}
 * (exit status 89, as OpenDJ's tools use for argument errors).
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import filters from '@ldapjs/filter';
import { GeneratorError, parseGenerator, type GeneratorFactory } from './generators.js';
import { TemplateError, argumentsUsed, compileTemplate, type Template } from './template.js';
import { errorMessage, errorCode } from '../errors.js';

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
  readonly useStartTls: boolean;
  readonly trustAll: boolean;
  /** The -D template as given, and compiled. */
  readonly bindDnTemplate: string;
  readonly bindDn: Template;
  readonly password: Buffer;
  /** Search-then-bind (-b and a filter): each bind DN template gets the found entry's DN as its last argument. */
  readonly search?: SearchThenBind;
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

export interface SearchThenBind {
  readonly base: Template;
  readonly filter: Template;
  /** RFC 4511 scope and derefAliases numbers. */
  readonly scope: number;
  readonly deref: number;
  readonly attributes: readonly string[];
}

const SCOPES: Readonly<Record<string, number>> = { base: 0, one: 1, sub: 2, subordinates: 3 };
const DEREF_POLICIES: Readonly<Record<string, number>> = { never: 0, search: 1, find: 2, always: 3 };

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
    fail(`-j: cannot read password file ${file}: ${errorCode(error) ?? String(error)}`);
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

/** Compiles a template that may use `available` arguments (the -g values, plus the found DN in search-then-bind). */
function template(flag: string, text: string, available: number, what: string): Template {
  try {
    const needed = argumentsUsed(text);
    if (needed > available) fail(`${flag} "${text}" uses ${needed} argument(s) but ${what}`);
    return compileTemplate(text);
  } catch (error) {
    if (error instanceof TemplateError) fail(`${flag} ${error.message}`);
    throw error;
  }
}

function bindDn(raw: Raw, argumentCount: number, searching: boolean): { template: string; compiled: Template } {
  const text = raw['bindDN'] === undefined ? fail('no bind DN: -D (--bindDN) is required') : String(single(raw['bindDN']));
  const what = searching ? `${argumentCount} -g given plus the found DN` : `${argumentCount} -g given`;
  return { template: text, compiled: template('-D', text, argumentCount + (searching ? 1 : 0), what) };
}

function choice(raw: Raw, name: string, flag: string, table: Readonly<Record<string, number>>): number {
  const text = String(single(raw[name]));
  const value = table[text.toLowerCase()];
  if (value === undefined) fail(`${flag}: "${text}" is not one of ${Object.keys(table).join(', ')}`);
  return value;
}

/** The filter template must parse once filled in; checked with placeholder arguments. */
function checkFilter(filter: Template, argumentCount: number): void {
  const sample = filter(Array.from({ length: argumentCount }, (_, i) => `x${i}`));
  try {
    filters.parseString(sample);
  } catch (error) {
    fail(`the filter "${sample}" (arguments filled in) is not an LDAP filter: ${errorMessage(error)}`);
  }
}

/** `-b BASE FILTER [ATTRIBUTE...]`: search-then-bind; neither: plain binds. */
function searchThenBind(raw: Raw, argumentCount: number): SearchThenBind | undefined {
  const [filterText, ...attributes] = list(raw['_']);
  const base = raw['baseDn'] === undefined ? undefined : String(single(raw['baseDn']));
  if (base === undefined && filterText === undefined) return undefined;
  if (base === undefined) fail(`a filter ("${filterText}") needs a search base: -b BASE (search-then-bind)`);
  if (filterText === undefined) fail('-b needs a filter template after the options (search-then-bind)');
  const available = `${argumentCount} -g given`;
  const filter = template('filter', filterText, argumentCount, available);
  checkFilter(filter, argumentCount);
  return {
    base: template('-b', base, argumentCount, available), filter, attributes,
    scope: choice(raw, 'searchScope', '-s', SCOPES), deref: choice(raw, 'dereferencePolicy', '-a', DEREF_POLICIES),
  };
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
  const factories = generators(raw);
  const search = searchThenBind(raw, factories.length);
  const dn = bindDn(raw, factories.length, search !== undefined);
  if (raw['useSsl'] && raw['useStartTls']) fail('-Z (LDAPS) and -q (StartTLS) exclude each other');
  const connections = number(raw, 'numConnections', '-c', isPositiveInteger, 'a positive integer');
  const maxIterations = number(raw, 'maxIterations', '-m', isNonNegativeInteger, 'a non-negative integer');
  checkIterations(maxIterations, connections);
  return {
    host: String(single(raw['hostname'])),
    port: number(raw, 'port', '-p', (n) => Number.isInteger(n) && n >= 1 && n <= 65535, 'a port number'),
    useSsl: Boolean(raw['useSsl']),
    useStartTls: Boolean(raw['useStartTls']),
    trustAll: Boolean(raw['trustAll']),
    bindDnTemplate: dn.template,
    bindDn: dn.compiled,
    password: password(raw),
    ...(search && { search }),
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
    .usage('$0 -D TEMPLATE (-w PASSWORD | -j FILE | --bindPasswordEnv NAME) [options] [-b BASE FILTER [ATTRIBUTE...]]\n\n'
      + 'Measures bind throughput and response time (OpenDJ/PingDS authrate). With -b and a filter template, each\n'
      + 'iteration searches first; the one entry found has its DN appended as the last template argument.')
    .parserConfiguration({ 'camel-case-expansion': false })
    .option('hostname', { alias: 'h', type: 'string', default: 'localhost', requiresArg: true, describe: 'server host' })
    .option('port', { alias: 'p', type: 'string', default: '389', requiresArg: true, describe: 'server port' })
    .option('useSsl', { alias: 'Z', type: 'boolean', describe: 'connect with TLS (LDAPS)' })
    .option('useStartTls', { alias: 'q', type: 'boolean', describe: 'upgrade each connection with StartTLS' })
    .option('trustAll', { alias: 'X', type: 'boolean', describe: 'accept any server certificate' })
    .option('bindDN', { alias: ['D', 'bindDn'], type: 'string', requiresArg: true, describe: 'bind DN template ({} / {N} / %s / %d)' })
    .option('bindPassword', { alias: 'w', type: 'string', requiresArg: true, describe: 'bind password' })
    .option('bindPasswordFile', { alias: ['j', 'bindPassword:file'], type: 'string', requiresArg: true, describe: 'read the bind password from a file' })
    .option('bindPasswordEnv', { alias: 'bindPassword:env', type: 'string', requiresArg: true, describe: 'read the bind password from an environment variable' })
    .option('baseDn', { alias: ['b', 'baseDN'], type: 'string', requiresArg: true, describe: 'search-then-bind: search base template' })
    .option('searchScope', { alias: 's', type: 'string', default: 'sub', requiresArg: true, describe: 'search-then-bind: base, one, sub or subordinates' })
    .option('dereferencePolicy', { alias: 'a', type: 'string', default: 'never', requiresArg: true, describe: 'search-then-bind: never, always, search or find' })
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
