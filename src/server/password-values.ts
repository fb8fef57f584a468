/**
 * userPassword on the way in (add, modify, password modify): a plain password is hashed with the
 * default scheme (--default-scheme); a value already in a registered {SCHEME} is kept, from the
 * admin only (anyone else: constraintViolation, so that nobody but the admin can plant a weak
 * or copied hash); an unknown {SCHEME}, an empty value or a hash this server could not verify
 * (e.g. above --max-iterations) is refused. A non-admin sets one value per operation, so one
 * request cannot queue thousands of costly hashes.
 */
import { DirectoryError, typeKey } from '../store/index.js';
import type { ServerContext } from './context.js';
import type { Identity } from './access.js';

function refuse(message: string): DirectoryError {
  return new DirectoryError('constraintViolation', `userPassword: ${message}`);
}

async function storedForm(value: Buffer, writer: Identity, server: ServerContext): Promise<Buffer> {
  if (value.byteLength === 0) throw refuse('an empty password cannot be set');
  const text = value.toString('utf8');
  const found = server.registry.classify(text);
  if (found.kind === 'plain') return Buffer.from(await server.registry.encode(server.defaultScheme, value), 'utf8');
  if (found.kind === 'unknown') throw refuse(`unknown password scheme {${found.name}}`);
  if (!writer.isAdmin) {
    throw refuse(`a value already hashed ({${found.scheme.names[0]}}) is accepted from the admin only; send the password in plain text`);
  }
  const problem = server.registry.unverifiable(text);
  if (problem) throw refuse(problem);
  return value;
}

/** The values to store for userPassword values a client writes (in the same order). */
export async function passwordsToStore(values: readonly Buffer[], writer: Identity, server: ServerContext): Promise<Buffer[]> {
  if (!writer.isAdmin && values.length > 1) throw refuse('only one password value may be set at a time');
  return Promise.all(values.map((value) => storedForm(value, writer, server)));
}

/** The values to store for an attribute a client writes: userPassword's through {@link passwordsToStore}, others as they are. */
export function valuesToStore(attribute: string, values: readonly Buffer[], writer: Identity, server: ServerContext): readonly Buffer[] | Promise<Buffer[]> {
  return typeKey(attribute) === 'userpassword' ? passwordsToStore(values, writer, server) : values;
}
