/**
 * searchrate's and modrate's bind: with -D, each connection binds once, when it opens (a failed
 * bind is the iteration's result code, and the connection is closed); without, it stays anonymous.
 */
import type { Workload } from './engine.js';
import type { Credentials } from './options.js';

export function bindOnOpen(credentials: Credentials | undefined): Workload['opened'] {
  if (!credentials) return undefined;
  return (connection) => connection.bind(credentials.dn, credentials.password);
}
