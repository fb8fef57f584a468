/** The built-in schemes, in the order `leveldap schemes` lists them. */
import type { PasswordScheme } from './scheme.js';
import { saltedDigestSchemes } from './salted-digest.js';
import { pbkdf2Schemes } from './pbkdf2.js';
import { pbkdf2Legacy389Scheme } from './pbkdf2-389-legacy.js';
import { pkcs5s2Scheme } from './pkcs5s2.js';
import { clearScheme } from './clear.js';
import { argon2Scheme } from './argon2.js';
import { cryptSchemes } from './crypt.js';

export const builtinSchemes: readonly PasswordScheme[] = [
  ...saltedDigestSchemes,
  ...pbkdf2Schemes,
  pbkdf2Legacy389Scheme,
  pkcs5s2Scheme,
  argon2Scheme,
  ...cryptSchemes,
  clearScheme,
];

export type { PasswordScheme, SchemeParams, ParamSpec, VerifyContext, StoredCost } from './scheme.js';
export { InvalidStoredValue } from './scheme.js';
