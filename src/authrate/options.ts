/**
 * The command line the load tools share (authrate, searchrate, modrate; OpenDJ/PingDS names and
 * defaults, docs/authrate.md), parsed with yargs: the connection, the credentials, the load's
 * shape (-c -f -g -d -m -i -B -M -e), the output (-S, --json), a search's options (-b -s -a and
 * the filter template), and the checks of templates and filters. Each tool adds its own options
 * and builds its config (authrate.ts, searchrate.ts, modrate.ts). Every mistake is a
 * {@link UsageError} (exit status 89, as OpenDJ's tools use for argument errors).
 */
import { readFileSync } from 'node:fs';
import yargs, { type Options } from 'yargs';
import { encodeFilterText } from './filter-text.js';
import { GeneratorError, parseGenerator, type GeneratorFactory } from './generators.js';
import { TemplateError, argumentsUsed, compileTemplate, type Template } from './template.js';
import { errorMessage, errorCode } from '../errors.js';

/** OpenDJ's exit status for a bad argument (ERR_... CLIENT_SIDE_PARAM_ERROR). */
export const USAGE_EXIT_CODE = 89;

export const DEFAULT_PERCENTILES: readonly number[] = [99.9, 99.99, 99.999];

export class UsageError extends Error {
  override name = 'UsageError';
}

/** What every load tool is told: where, how many connections, how long, what to print. */
export interface LoadConfig {
  readonly host: string;
  readonly port: number;
  readonly useSsl: boolean;
  readonly useStartTls: boolean;
  readonly trustAll: boolean;
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
  readonly scriptFriendly: boolean;
  readonly json: boolean;
}

/** A search whose base and filter are templates (authrate's search-then-bind, searchrate). */
export interface SearchTemplate {
  readonly base: Template;
  readonly filter: Template;
  /** RFC 4511 scope and derefAliases numbers. */
  readonly scope: number;
  readonly deref: number;
  readonly attributes: readonly string[];
}

/** The bind searchrate and modrate make on each connection when -D is given. */
export interface Credentials {
  readonly dn: string;
  readonly password: Buffer;
}

const SCOPES: Readonly<Record<string, number>> = { base: 0, one: 1, sub: 2, subordinates: 3 };
const DEREF_POLICIES: Readonly<Record<string, number>> = { never: 0, search: 1, find: 2, always: 3 };

export type Raw = Record<string, unknown>;

export function fail(message: string): never {
  throw new UsageError(message);
}

/** A repeated option is an array, a single one a value; either way a list of strings. */
export function list(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** The last value when an option was given twice. */
export function single(value: unknown): unknown {
  return Array.isArray(value) ? value.at(-1) : value;
}

/** Decimal numbers only: Number() would also take "0x10", "1e2" and " 5 " (OpenDJ's arguments take none). */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

function number(raw: Raw, name: string, flag: string, check: (n: number) => boolean, what: string): number {
  const text = String(single(raw[name]));
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || !check(value)) fail(`${flag}: "${text}" is not ${what}`);
  return value;
}

/** The longest time Node's timers take: 2^31 - 1 ms (about 24.8 days); longer ones fire at once. */
const MAX_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
const seconds = (n: number): boolean => n >= 0 && n <= MAX_SECONDS;

const isNonNegativeInteger = (n: number) => Number.isInteger(n) && n >= 0;
const isPositiveInteger = (n: number) => Number.isInteger(n) && n >= 1;
export const isPercent = (n: number) => n >= 0 && n <= 100;

/** A percentage option (authrate's -I). */
export function percentOption(raw: Raw, name: string, flag: string): number {
  return number(raw, name, flag, isPercent, 'a percentage in 0..100');
}

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

/** The flags that gave a password. */
function passwordFlags(raw: Raw): string[] {
  return ([['-w', 'bindPassword'], ['-j', 'bindPasswordFile'], ['--bindPasswordEnv', 'bindPasswordEnv']] as const)
    .filter(([, name]) => raw[name] !== undefined).map(([flag]) => flag);
}

/** The bind password, given exactly one way (-w, -j or --bindPasswordEnv). */
export function bindPassword(raw: Raw): Buffer {
  const given = passwordFlags(raw);
  if (given.length === 0) fail('a bind password is needed: -w PASSWORD, -j FILE or --bindPasswordEnv NAME');
  if (given.length > 1) fail(`give the bind password one way only, not ${given.join(' and ')}`);
  if (raw['bindPassword'] !== undefined) return Buffer.from(String(single(raw['bindPassword'])), 'utf8');
  if (raw['bindPasswordFile'] !== undefined) return readPasswordFile(String(single(raw['bindPasswordFile'])));
  const name = String(single(raw['bindPasswordEnv']));
  const value = process.env[name];
  if (value === undefined) fail(`--bindPasswordEnv: the environment variable ${name} is not set`);
  return Buffer.from(value, 'utf8');
}

/** searchrate's and modrate's bind: -D (a DN as given, no template) with its password; none without -D (anonymous). */
export function optionalCredentials(raw: Raw): Credentials | undefined {
  if (raw['bindDN'] !== undefined) return { dn: String(single(raw['bindDN'])), password: bindPassword(raw) };
  const given = passwordFlags(raw);
  if (given.length > 0) fail(`${given[0]} gives a password but no bind DN: add -D, or leave both out to search anonymously`);
  return undefined;
}

/** Parses a generator given with `flag` (-g, or inline in modrate's -M); a mistake names the flag. */
export function generator(flag: string, spec: string): GeneratorFactory {
  try {
    return parseGenerator(spec);
  } catch (error) {
    if (error instanceof GeneratorError) fail(`${flag} ${error.message}`);
    throw error;
  }
}

const generators = (raw: Raw): GeneratorFactory[] => list(raw['argument']).map((spec) => generator('-g', spec));

/** Compiles a template that may use `available` arguments (the -g values, plus the found DN in search-then-bind). */
export function template(flag: string, text: string, available: number, what: string): Template {
  try {
    const needed = argumentsUsed(text);
    if (needed > available) fail(`${flag} "${text}" uses ${needed} argument(s) but ${what}`);
    return compileTemplate(text);
  } catch (error) {
    if (error instanceof TemplateError) fail(`${flag} ${error.message}`);
    throw error;
  }
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
    encodeFilterText(sample);
  } catch (error) {
    fail(`the filter "${sample}" (arguments filled in) is not an LDAP filter: ${errorMessage(error)}`);
  }
}

/** `-b BASE` (a template), -s, -a, and the filter template and attributes after the options. */
export function searchTemplate(raw: Raw, base: string, filterText: string, attributes: readonly string[], argumentCount: number): SearchTemplate {
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

/** The options every tool shares, checked. */
export function loadConfig(raw: Raw): LoadConfig {
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
    connections,
    keepConnectionsOpen: Boolean(raw['keepConnectionsOpen']) || Boolean(raw['noRebind']),
    generators: generators(raw),
    maxDuration: number(raw, 'maxDuration', '-d', seconds, `a duration in seconds (at most ${MAX_SECONDS})`),
    maxIterations,
    statInterval: number(raw, 'statInterval', '-i', (n) => n > 0 && seconds(n), `a positive number of seconds (at most ${MAX_SECONDS})`),
    warmUpDuration: number(raw, 'warmUpDuration', '-B', seconds, `a duration in seconds (at most ${MAX_SECONDS})`),
    targetThroughput: number(raw, 'targetThroughput', '-M', (n) => n >= 0, 'a rate in ops/second'),
    percentiles: percentiles(raw),
    scriptFriendly: Boolean(raw['scriptFriendly']),
    json: Boolean(raw['json']),
  };
}

/** The options of every tool, by yargs name. */
export const SHARED_OPTIONS: Readonly<Record<string, Options>> = {
  hostname: { alias: 'h', type: 'string', default: 'localhost', requiresArg: true, describe: 'server host' },
  port: { alias: 'p', type: 'string', default: '389', requiresArg: true, describe: 'server port' },
  useSsl: { alias: 'Z', type: 'boolean', describe: 'connect with TLS (LDAPS)' },
  useStartTls: { alias: 'q', type: 'boolean', describe: 'upgrade each connection with StartTLS' },
  trustAll: { alias: 'X', type: 'boolean', describe: 'accept any server certificate' },
  bindPassword: { alias: 'w', type: 'string', requiresArg: true, describe: 'bind password' },
  bindPasswordFile: { alias: ['j', 'bindPassword:file'], type: 'string', requiresArg: true, describe: 'read the bind password from a file' },
  bindPasswordEnv: { alias: 'bindPassword:env', type: 'string', requiresArg: true, describe: 'read the bind password from an environment variable' },
  numConnections: { alias: 'c', type: 'string', default: '1', requiresArg: true, describe: 'connections (one worker each)' },
  argument: { alias: 'g', type: 'string', requiresArg: true, describe: 'template argument: rand(a,b), inc(a,b), rand(file), inc(file), randstr(n[,chars]) or a value (repeatable)' },
  maxDuration: { alias: 'd', type: 'string', default: '0', requiresArg: true, describe: 'stop after this many seconds (0 = no limit)' },
  maxIterations: { alias: 'm', type: 'string', default: '0', requiresArg: true, describe: 'stop after this many operations in all (0 = no limit)' },
  statInterval: { alias: 'i', type: 'string', default: '5', requiresArg: true, describe: 'seconds between statistics lines' },
  warmUpDuration: { alias: 'B', type: 'string', default: '0', requiresArg: true, describe: 'seconds of operations not counted first' },
  targetThroughput: { alias: 'M', type: 'string', default: '0', requiresArg: true, describe: 'target operations/second in all (0 = unthrottled)' },
  percentile: { alias: 'e', type: 'string', requiresArg: true, describe: 'response time percentile to show (repeatable; default 99.9 99.99 99.999)' },
  scriptFriendly: { alias: 'S', type: 'boolean', describe: 'CSV output' },
  json: { type: 'boolean', describe: 'print one JSON summary at the end instead of the table' },
};

/** A search's options (authrate's search-then-bind, searchrate). */
export const SEARCH_OPTIONS: Readonly<Record<string, Options>> = {
  baseDn: { alias: ['b', 'baseDN'], type: 'string', requiresArg: true, describe: 'search base template' },
  searchScope: { alias: 's', type: 'string', default: 'sub', requiresArg: true, describe: 'base, one, sub or subordinates' },
  dereferencePolicy: { alias: 'a', type: 'string', default: 'never', requiresArg: true, describe: 'never, always, search or find' },
};

/** searchrate's and modrate's -D (a DN; authrate's is a template) and -F. */
export const BIND_ONCE_OPTIONS: Readonly<Record<string, Options>> = {
  bindDN: { alias: ['D', 'bindDn'], type: 'string', requiresArg: true, describe: 'bind as this DN on each connection (else anonymous)' },
  keepConnectionsOpen: { alias: 'f', type: 'boolean', describe: 'keep connections open (each binds once, when it opens)' },
  noRebind: { alias: 'F', type: 'boolean', describe: 'the same as -f here (OpenDJ: keep connections open and do not rebind)' },
};

/** A tool's command line. */
export interface ToolParser {
  readonly name: string;
  readonly usage: string;
  /** The tool's options beside SHARED_OPTIONS (an entry of the same name replaces the shared one). */
  readonly options: Readonly<Record<string, Options>>;
}

/** Parses a tool's arguments (without the node and script names) with yargs into raw values; throws UsageError. */
export function parseRaw(tool: ToolParser, args: readonly string[]): Raw {
  return yargs([...args])
    .scriptName(tool.name)
    .usage(tool.usage)
    // Positional arguments stay text: an attribute "1.10" is not the number 1.1 (nor "1e3" 1000).
    .parserConfiguration({ 'camel-case-expansion': false, 'parse-positional-numbers': false })
    .options({ ...SHARED_OPTIONS, ...tool.options })
    .strictOptions()
    .version(false)
    .help('help')
    .wrap(null)
    .fail((message, error) => fail(message || error?.message || 'bad arguments'))
    .parseSync() as Raw;
}
