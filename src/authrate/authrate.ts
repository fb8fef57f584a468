/**
 * `authrate`, the bind load tool, compatible with OpenDJ/PingDS authrate (docs/authrate.md): its
 * options beside the shared ones (-D a template, required, with a password; -I; search-then-bind
 * with -b and a filter), and its workload: each iteration binds (with -I percent of wrong
 * passwords) or, in search-then-bind, searches for exactly one entry (else error 94 none / 95
 * several) and binds as its DN, timed as one operation.
 */
import { runTool, type Tool } from './cli.js';
import type { Options } from 'yargs';
import { startLoad, type LoadListener, type LoadRun, type Workload } from './engine.js';
import {
  SEARCH_OPTIONS, bindPassword, fail, list, loadConfig, parseRaw, percentOption, searchTemplate, single, template,
  type LoadConfig, type Raw, type SearchTemplate,
} from './options.js';
import type { LdapConnection } from './connection.js';
import { BAD_FILTER, fillSearch } from './search.js';
import type { Template } from './template.js';

export interface AuthrateConfig extends LoadConfig {
  /** The -D template as given, and compiled. */
  readonly bindDnTemplate: string;
  readonly bindDn: Template;
  readonly password: Buffer;
  /** Search-then-bind (-b and a filter): each bind DN template gets the found entry's DN as its last argument. */
  readonly search?: SearchTemplate;
  /** Percent of binds with the password "invalid-password". */
  readonly invalidPassword: number;
}

const INVALID_PASSWORD = Buffer.from('invalid-password', 'utf8');
/** Client-side result codes of a search-then-bind search that did not find exactly one entry (LDAP C API). */
const NO_RESULTS_RETURNED = 94;
const MORE_RESULTS_TO_RETURN = 95;

const USAGE = '$0 -D TEMPLATE (-w PASSWORD | -j FILE | --bindPasswordEnv NAME) [options] [-b BASE FILTER [ATTRIBUTE...]]\n\n'
  + 'Measures bind throughput and response time (OpenDJ/PingDS authrate). With -b and a filter template, each\n'
  + 'iteration searches first; the one entry found has its DN appended as the last template argument.';

const OPTIONS: Readonly<Record<string, Options>> = {
  bindDN: { alias: ['D', 'bindDn'], type: 'string', requiresArg: true, describe: 'bind DN template ({} / {N} / %s / %d)' },
  keepConnectionsOpen: { alias: 'f', type: 'boolean', describe: 'keep connections open and rebind' },
  ...SEARCH_OPTIONS,
  invalidPassword: { alias: 'I', type: 'string', default: '0', requiresArg: true, describe: 'percent of binds with a wrong password' },
};

function bindDn(raw: Raw, argumentCount: number, searching: boolean): { template: string; compiled: Template } {
  const text = raw['bindDN'] === undefined ? fail('no bind DN: -D (--bindDN) is required') : String(single(raw['bindDN']));
  const what = searching ? `${argumentCount} -g given plus the found DN` : `${argumentCount} -g given`;
  return { template: text, compiled: template('-D', text, argumentCount + (searching ? 1 : 0), what) };
}

/** `-b BASE FILTER [ATTRIBUTE...]`: search-then-bind; neither: plain binds. */
function searchThenBind(raw: Raw, argumentCount: number): SearchTemplate | undefined {
  const [filterText, ...attributes] = list(raw['_']);
  const base = raw['baseDn'] === undefined ? undefined : String(single(raw['baseDn']));
  if (base === undefined && filterText === undefined) return undefined;
  if (base === undefined) fail(`a filter ("${filterText}") needs a search base: -b BASE (search-then-bind)`);
  if (filterText === undefined) fail('-b needs a filter template after the options (search-then-bind)');
  return searchTemplate(raw, base, filterText, attributes, argumentCount);
}

/** Parses authrate's arguments (without the node and script names). Throws UsageError. */
export function parseAuthrateOptions(args: readonly string[]): AuthrateConfig {
  const raw = parseRaw({ name: 'authrate', usage: USAGE, options: OPTIONS }, args);
  const load = loadConfig(raw);
  const search = searchThenBind(raw, load.generators.length);
  const dn = bindDn(raw, load.generators.length, search !== undefined);
  return {
    ...load,
    bindDnTemplate: dn.template,
    bindDn: dn.compiled,
    password: bindPassword(raw),
    ...(search && { search }),
    invalidPassword: percentOption(raw, 'invalidPassword', '-I'),
  };
}

/** The one entry's DN, or the code that counts as the iteration's error. */
async function findEntry(connection: LdapConnection, search: SearchTemplate, args: readonly string[]): Promise<string | number> {
  const filled = fillSearch(search, args);
  if (filled === BAD_FILTER) return BAD_FILTER;
  const { code, dns } = await connection.search(filled);
  if (code !== 0) return code;
  if (dns.length !== 1) return dns.length === 0 ? NO_RESULTS_RETURNED : MORE_RESULTS_TO_RETURN;
  return dns[0]!;
}

/** A bind per iteration (after its search, in search-then-bind). */
function binds(config: AuthrateConfig): Workload {
  const { search, bindDn } = config;
  const password = () => (Math.random() * 100 < config.invalidPassword ? INVALID_PASSWORD : config.password);
  return {
    async iterate(connection, args, tally) {
      if (!search) return connection.bind(bindDn(args), password());
      const searchStart = performance.now();
      const found = await findEntry(connection, search, args);
      tally.searchMs = performance.now() - searchStart;
      if (typeof found === 'number') return found;
      return connection.bind(bindDn([...args, found]), password());
    },
  };
}

export const AUTHRATE: Tool<AuthrateConfig> = {
  name: 'authrate',
  parse: parseAuthrateOptions,
  workload: (config) => () => binds(config),
  extraColumn: (config) => (config.search ? 'bindTime' : undefined),
};

/** Starts authrate's load (call probe first): what bench-schemes drives. */
export function startAuthrate(config: AuthrateConfig, listener: LoadListener = {}): LoadRun {
  return startLoad(config, AUTHRATE.workload(config), listener);
}

/** `argv` as process.argv: the node binary and the script first. */
export function main(argv: readonly string[]): Promise<void> {
  return runTool(AUTHRATE, argv);
}
