/**
 * `{CLEARTEXT}` / `{CLEAR}`: the password as it is. Read so that a directory can be migrated
 * (OpenLDAP writes `{CLEARTEXT}`); never a default scheme unless explicitly allowed.
 */
import type { PasswordScheme } from './scheme.js';
import { constantTimeEqualAnyLength } from './encoding.js';

export const clearScheme: PasswordScheme = {
  names: ['CLEAR', 'CLEARTEXT'],
  description: 'no hashing: the password in clear; for migration only',
  async encode(password) {
    const text = Buffer.from(password).toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(password)) throw new Error('a {CLEAR} password must be valid UTF-8');
    return `{CLEAR}${text}`;
  },
  async verify(password, value) {
    return constantTimeEqualAnyLength(password, Buffer.from(value, 'utf8'));
  },
};
