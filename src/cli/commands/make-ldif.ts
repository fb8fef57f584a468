/** `leveldap make-ldif --users N [--groups G]`: test users in the spirit of OpenDJ's example template, and groups of them. */
import type { Argv, CommandModule } from 'yargs';
import { formatLdifRecords, hashPasswords, makeEntries, orderedMap } from '../../ldif/index.js';
import type { Entry } from '../../store/index.js';
import { registryFromOptions, schemeParams, withParamOption, withSchemeOptions, type ParamOption, type SchemeOptions } from '../options/schemes.js';
import { writeAll } from '../support/output.js';
import type { SchemeRegistry } from '../../password/index.js';
import { isClearScheme } from '../../policy/index.js';

interface MakeArgs extends SchemeOptions, ParamOption {
  users: number;
  groups: number;
  'base-dn': string;
  password: string;
  scheme: string;
  seed: string;
  iterations?: number;
}

const PLAIN = new Set<string>();

async function* hashed(entries: Iterable<Entry>, registry: SchemeRegistry, args: MakeArgs): AsyncGenerator<Entry> {
  const policy = { registry, scheme: args.scheme, params: schemeParams({ iterations: args.iterations, param: args.param }) };
  async function* source(): AsyncGenerator<Entry> { yield* entries; }
  for await (const outcome of orderedMap(source(), async (entry) => hashPasswords(entry, policy), 64)) {
    if (!outcome.ok) throw outcome.error;
    yield outcome.value;
  }
}

async function handler(args: MakeArgs): Promise<void> {
  const registry = await registryFromOptions(args);
  const clear = isClearScheme(registry.require(args.scheme));
  const entries = makeEntries({ users: args.users, groups: args.groups, baseDn: args['base-dn'], seed: args.seed, password: args.password });
  await writeAll(formatLdifRecords(clear ? entries : hashed(entries, registry, args), { base64Attributes: PLAIN }));
}

export const makeLdifCommand: CommandModule<object, MakeArgs> = {
  command: 'make-ldif',
  describe: 'generate LDIF: the base entry, ou=People and uid=user.0 .. user.N-1 (and ou=Groups with cn=group.0 .. group.G-1)',
  builder: (yargs: Argv) => withParamOption(withSchemeOptions(yargs))
    .option('users', { type: 'number', demandOption: true, requiresArg: true, describe: 'number of users' })
    .option('groups', { type: 'number', default: 0, requiresArg: true, describe: 'groupOfNames entries under ou=Groups: each user in 1-4 groups, sizes falling off, some nested' })
    .option('base-dn', { type: 'string', default: 'dc=example,dc=com', requiresArg: true, describe: 'suffix' })
    .option('password', { type: 'string', default: 'password', requiresArg: true, describe: 'every user\'s password' })
    .option('scheme', { type: 'string', default: 'CLEAR', requiresArg: true, describe: 'CLEAR writes the password for import-time hashing; another scheme writes hashes' })
    .option('seed', { type: 'string', default: '0', requiresArg: true, describe: 'same seed, same output' })
    .option('iterations', { type: 'number', requiresArg: true, describe: 'iterations for a PBKDF2 scheme' })
    .check((args) => Number.isInteger(args.users) && args.users >= 0 || '--users must be a whole number')
    .check((args) => Number.isInteger(args.groups) && args.groups >= 0 || '--groups must be a whole number')
    .check((args) => args.groups === 0 || args.users > 0 || '--groups needs at least one user (groupOfNames must have a member)') as Argv<MakeArgs>,
  handler,
};
