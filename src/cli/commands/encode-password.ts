/** `leveldap encode-password`: hash a password, or check one against a stored value. */
import type { Argv, CommandModule } from 'yargs';
import type { SchemeRegistry } from '../../password/index.js';
import { DEFAULT_SCHEME } from '../../policy/index.js';
import { readPassword } from '../support/password-input.js';
import { registryFromOptions, schemeParams, withParamOption, withSchemeOptions, type ParamOption, type SchemeOptions } from '../options/schemes.js';

interface EncodeArgs extends SchemeOptions, ParamOption {
  password?: string;
  'password-file'?: string;
  scheme: string;
  verify?: string;
  iterations?: number;
  'salt-length'?: number;
}

/** Exit statuses of --verify. */
const MATCH = 0;
const MISMATCH = 1;
const ERROR = 2;

function builder(yargs: Argv): Argv<EncodeArgs> {
  return withParamOption(withSchemeOptions(yargs))
    .positional('password', { type: 'string', describe: 'the password (or use --password-file / stdin)' })
    .option('password-file', { type: 'string', requiresArg: true, describe: 'read the password from this file ("-" for stdin)' })
    .option('scheme', { type: 'string', default: DEFAULT_SCHEME, requiresArg: true, describe: 'scheme to hash with' })
    .option('verify', { type: 'string', requiresArg: true, describe: 'check the password against this stored value' })
    .option('iterations', { type: 'number', requiresArg: true, describe: 'iterations, for schemes that take them' })
    .option('salt-length', { type: 'number', requiresArg: true, describe: 'salt bytes, for salted digests' })
    .example('$0 encode-password --scheme SSHA512 secret', 'print {SSHA512}...')
    .example('$0 encode-password --scheme ARGON2 --param memory=65536,time=3,parallelism=4 secret', "print {ARGON2}$argon2id$v=19$m=65536,t=3,p=4$...")
    .example("$0 encode-password --verify '{SSHA}...' secret", 'exit 0 on match, 1 on mismatch, 2 on error') as Argv<EncodeArgs>;
}

async function verify(registry: SchemeRegistry, password: Buffer, stored: string): Promise<number> {
  const result = await registry.verify(password, stored);
  if (result.status === 'invalid') return ERROR;
  process.stdout.write(`${result.status} ({${result.scheme}})\n`);
  return result.status === 'match' ? MATCH : MISMATCH;
}

async function handler(args: EncodeArgs): Promise<void> {
  const registry = await registryFromOptions(args);
  const password = await readPassword(args.password, args['password-file']);
  if (args.verify !== undefined) {
    process.exitCode = await verify(registry, password, args.verify);
    return;
  }
  process.stdout.write(`${await registry.encode(args.scheme, password, schemeParams({ iterations: args.iterations, saltLength: args['salt-length'], param: args.param }))}\n`);
}

export const encodePasswordCommand: CommandModule<object, EncodeArgs> = {
  command: 'encode-password [password]',
  describe: 'hash a password with a storage scheme, or --verify one against a stored value',
  builder,
  handler,
};
