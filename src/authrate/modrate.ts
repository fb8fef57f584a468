/**
 * `modrate`, the modify load tool, after OpenDJ/PingDS modrate (docs/authrate.md): `-b DN` (a
 * template: the entry each iteration modifies) and `-M ATTRIBUTE:VALUE` (repeatable; OpenDJ's
 * positional ATTRIBUTE:VALUE arguments work too), each a replace of the attribute's values by one
 * value: a template filled in with the -g arguments (`description:%s`), or a generator of its own
 * (`description:rand(0,1000)`, `title:randstr(12)`). One ModifyRequest per iteration holds every
 * change. With `-D` each connection binds once when it opens, else it modifies anonymously. `-M`
 * is a modification here, as leveldap's CLI contract says; the target throughput is
 * `--targetThroughput` (OpenDJ's `-M`), and a -M that is not ATTRIBUTE:VALUE says so.
 */
import type { Options } from 'yargs';
import { runTool, type Tool } from './cli.js';
import type { Workload } from './engine.js';
import { isGeneratorCall } from './generators.js';
import {
  BIND_ONCE_OPTIONS, SHARED_OPTIONS, fail, generator, list, loadConfig, optionalCredentials, parseRaw, single, template,
  type Credentials, type LoadConfig, type Raw,
} from './options.js';
import type { Template } from './template.js';
import type { Replacement } from './wire.js';
import { bindOnOpen } from './bind-once.js';

/** One -M: the attribute, and the value of each iteration (from its arguments, or from a generator of the worker's own). */
export interface Modification {
  readonly attribute: string;
  readonly value: { readonly template: Template } | { readonly generator: () => () => string };
}

export interface ModrateConfig extends LoadConfig {
  /** The DN of the entry to modify. */
  readonly dn: Template;
  readonly modifications: readonly Modification[];
  /** -D and its password; undefined: anonymous. */
  readonly credentials?: Credentials;
}

const USAGE = '$0 -b DN -M ATTRIBUTE:VALUE [-M ...] [options]\n\n'
  + 'Measures modify throughput and response time (OpenDJ/PingDS modrate). Each iteration replaces the\n'
  + 'attributes given with -M in the entry -b names; the DN and the values are templates filled in with the -g\n'
  + 'arguments, or a value is a generator of its own (description:rand(0,1000)). -M is a modification here:\n'
  + 'the target throughput is --targetThroughput.';

const OPTIONS: Readonly<Record<string, Options>> = {
  ...BIND_ONCE_OPTIONS,
  baseDn: { alias: ['b', 'baseDN'], type: 'string', requiresArg: true, describe: 'DN template of the entry to modify' },
  modification: { alias: 'M', type: 'string', requiresArg: true, describe: 'ATTRIBUTE:VALUE to replace; the value a template or a generator (repeatable)' },
  targetThroughput: { ...SHARED_OPTIONS['targetThroughput'], alias: [] },
};

/** An attribute description: a name or an OID, with options. */
const ATTRIBUTE = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)+)(?:;[A-Za-z0-9-]+)*$/;

function modification(spec: string, argumentCount: number): Modification {
  const colon = spec.indexOf(':');
  const attribute = spec.slice(0, Math.max(colon, 0));
  if (colon < 1 || !ATTRIBUTE.test(attribute)) {
    fail(`-M "${spec}": a modification is ATTRIBUTE:VALUE (in modrate -M is a modification; the target throughput is --targetThroughput)`);
  }
  const value = spec.slice(colon + 1);
  if (isGeneratorCall(value)) return { attribute, value: { generator: generator(`-M ${attribute}:`, value) } };
  return { attribute, value: { template: template(`-M ${attribute}:`, value, argumentCount, `${argumentCount} -g given`) } };
}

function modifications(raw: Raw, argumentCount: number): Modification[] {
  const specs = [...list(raw['modification']), ...list(raw['_'])];
  if (specs.length === 0) fail('no modification: -M ATTRIBUTE:VALUE (repeatable)');
  return specs.map((spec) => modification(spec, argumentCount));
}

/** Parses modrate's arguments (without the node and script names). Throws UsageError. */
export function parseModrateOptions(args: readonly string[]): ModrateConfig {
  const raw = parseRaw({ name: 'modrate', usage: USAGE, options: OPTIONS }, args);
  const load = loadConfig(raw);
  const count = load.generators.length;
  if (raw['baseDn'] === undefined) fail('no entry: -b DN (a template) is required');
  const credentials = optionalCredentials(raw);
  return {
    ...load,
    dn: template('-b', String(single(raw['baseDn'])), count, `${count} -g given`),
    modifications: modifications(raw, count),
    ...(credentials && { credentials }),
  };
}

/** The changes of each iteration, with this worker's own value generators. */
function changesOf(modifications: readonly Modification[]): (args: readonly string[]) => Replacement[] {
  const values = modifications.map(({ value }) => {
    if ('template' in value) return value.template;
    const next = value.generator();
    return () => next();
  });
  return (args) => modifications.map(({ attribute }, i) => ({ attribute, values: [values[i]!(args)] }));
}

/** A modify per iteration. */
function modifies(config: ModrateConfig): Workload {
  const changes = changesOf(config.modifications);
  return {
    opened: bindOnOpen(config.credentials),
    iterate: (connection, args) => connection.modify(config.dn(args), changes(args)),
  };
}

export const MODRATE: Tool<ModrateConfig> = {
  name: 'modrate',
  parse: parseModrateOptions,
  workload: (config) => () => modifies(config),
};

/** `argv` as process.argv: the node binary and the script first. */
export function main(argv: readonly string[]): Promise<void> {
  return runTool(MODRATE, argv);
}
