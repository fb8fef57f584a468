/**
 * `searchrate`, the search load tool, compatible with OpenDJ/PingDS searchrate (docs/authrate.md):
 * `-b BASE` (a template), `-s`, `-a`, then a filter template and the attributes to return; with
 * `-D` each connection binds once when it opens, else it searches anonymously. An iteration is one
 * search. A search that returns no entry is not an error (its result code is 0, and OpenDJ counts
 * it so): the table's "Entries/Srch" column, as OpenDJ's, and --json's `entries` and
 * `entries_per_search` say how many entries the searches returned.
 */
import type { Options } from 'yargs';
import { runTool, type Tool } from './cli.js';
import type { Workload } from './engine.js';
import {
  BIND_ONCE_OPTIONS, SEARCH_OPTIONS, fail, list, loadConfig, optionalCredentials, parseRaw, searchTemplate, single,
  type Credentials, type LoadConfig, type SearchTemplate,
} from './options.js';
import { bindOnOpen } from './bind-once.js';
import { BAD_FILTER, fillSearch } from './search.js';

export interface SearchrateConfig extends LoadConfig {
  readonly search: SearchTemplate;
  /** -D and its password; undefined: anonymous. */
  readonly credentials?: Credentials;
}

const USAGE = '$0 -b BASE [options] FILTER [ATTRIBUTE...]\n\n'
  + 'Measures search throughput and response time (OpenDJ/PingDS searchrate). The base and the filter are\n'
  + 'templates filled in with the -g arguments; with -D each connection binds once, else searches anonymously.';

const OPTIONS: Readonly<Record<string, Options>> = { ...BIND_ONCE_OPTIONS, ...SEARCH_OPTIONS };

/** Parses searchrate's arguments (without the node and script names). Throws UsageError. */
export function parseSearchrateOptions(args: readonly string[]): SearchrateConfig {
  const raw = parseRaw({ name: 'searchrate', usage: USAGE, options: OPTIONS }, args);
  const load = loadConfig(raw);
  const [filter, ...attributes] = list(raw['_']);
  if (raw['baseDn'] === undefined) fail('no search base: -b BASE (a template) is required');
  if (filter === undefined) fail('no filter: give a filter template after the options, then the attributes to return');
  const credentials = optionalCredentials(raw);
  return {
    ...load,
    search: searchTemplate(raw, String(single(raw['baseDn'])), filter, attributes, load.generators.length),
    ...(credentials && { credentials }),
  };
}

/** A search per iteration, its entries counted. */
function searches(config: SearchrateConfig): Workload {
  return {
    opened: bindOnOpen(config.credentials),
    async iterate(connection, args, tally) {
      const search = fillSearch(config.search, args);
      if (search === BAD_FILTER) return BAD_FILTER;
      const { code, entries } = await connection.search(search);
      tally.entries = entries;
      return code;
    },
  };
}

export const SEARCHRATE: Tool<SearchrateConfig> = {
  name: 'searchrate',
  parse: parseSearchrateOptions,
  workload: (config) => () => searches(config),
  extraColumn: () => 'entriesPerSearch',
};

/** `argv` as process.argv: the node binary and the script first. */
export function main(argv: readonly string[]): Promise<void> {
  return runTool(SEARCHRATE, argv);
}
