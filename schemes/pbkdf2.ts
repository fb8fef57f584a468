/**
 * The PBKDF2 family, in the two textual layouts found in the wild:
 *
 * - OpenLDAP pw-pbkdf2 and 389 DS pwdchan: `{PBKDF2-SHA256}<iterations>$<salt>$<dk>`, the
 *   fields in adapted base64 (OpenLDAP) or padded standard base64 (389). Written the OpenLDAP
 *   way: 16-byte salt, dk of the digest's length (OpenLDAP verifies nothing else).
 * - OpenDJ / ForgeRock DS: `{PBKDF2-HMAC-SHA256}<iterations>:base64(dk || salt)`.
 *
 * `{PBKDF2}` means SHA-1 in both, so every name reads both layouts, told apart by the
 * separator after the iteration count.
 */
import type { PasswordScheme, SchemeParams, VerifyContext } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import {
  constantTimeEqual, decodeAdaptedBase64, decodeBase64, encodeAdaptedBase64, encodeBase64, parseCount, randomSalt,
} from './encoding.js';
import { KDF_DIGEST_LENGTH, pbkdf2Async, type KdfDigest } from './kdf.js';

const SALT_LENGTH = 16;
const DEFAULT_ITERATIONS = 10_000;

interface Pbkdf2Value {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

const ITERATIONS_PARAM = {
  name: 'iterations', default: DEFAULT_ITERATIONS, min: 1000, max: 10_000_000,
  description: 'PBKDF2 iterations written',
  cost: (iterations: number) => ({ iterations }),
} as const;

/** `<iterations>$<salt>$<dk>` (OpenLDAP, 389 DS). */
function parseDollarLayout(value: string, digest: KdfDigest): Pbkdf2Value {
  const fields = value.split('$');
  if (fields.length !== 3) throw new InvalidStoredValue('expected <iterations>$<salt>$<hash>');
  const [count, saltText, keyText] = fields as [string, string, string];
  const salt = decodeAdaptedBase64(saltText, 'the salt');
  const key = decodeAdaptedBase64(keyText, 'the hash');
  if (salt.byteLength === 0) throw new InvalidStoredValue('the salt is empty');
  // 389 DS would derive any length it finds; a hash shorter than the digest is a truncated
  // value, so only the full length is accepted (every server writes the full length).
  if (key.byteLength !== KDF_DIGEST_LENGTH[digest]) {
    throw new InvalidStoredValue(`the hash is ${key.byteLength} bytes; ${digest} PBKDF2 needs ${KDF_DIGEST_LENGTH[digest]}`);
  }
  return { iterations: parseCount(count, 'the iteration count'), salt, key };
}

/** `<iterations>:base64(dk || salt)` (OpenDJ, ForgeRock DS). */
function parseColonLayout(value: string, digest: KdfDigest): Pbkdf2Value {
  const colon = value.indexOf(':');
  const decoded = decodeBase64(value.slice(colon + 1), 'the hash and salt');
  const keyLength = KDF_DIGEST_LENGTH[digest];
  if (decoded.byteLength <= keyLength) throw new InvalidStoredValue('no salt after the hash');
  return {
    iterations: parseCount(value.slice(0, colon), 'the iteration count'),
    key: decoded.subarray(0, keyLength),
    salt: decoded.subarray(keyLength),
  };
}

function parseValue(value: string, digest: KdfDigest): Pbkdf2Value {
  const layout = /^[0-9]+([:$])/.exec(value);
  if (!layout) throw new InvalidStoredValue('expected an iteration count followed by "$" or ":"');
  return layout[1] === ':' ? parseColonLayout(value, digest) : parseDollarLayout(value, digest);
}

async function verifyValue(digest: KdfDigest, password: Uint8Array, value: string): Promise<boolean> {
  const parsed = parseValue(value, digest);
  const derived = await pbkdf2Async(digest, password, parsed.salt, parsed.iterations, parsed.key.byteLength);
  return constantTimeEqual(derived, parsed.key);
}

type Layout = 'openldap' | 'opendj';

function pbkdf2Scheme(name: string, digest: KdfDigest, layout: Layout): PasswordScheme {
  const where = layout === 'openldap' ? 'OpenLDAP pw-pbkdf2: iterations$ab64(salt16)$ab64(dk)'
    : 'OpenDJ: iterations:base64(dk + salt16)';
  return {
    names: [name],
    description: `PBKDF2-HMAC-${digest.toUpperCase()}, written as ${where}; reads both layouts`,
    params: [ITERATIONS_PARAM],
    async encode(password: Uint8Array, params: SchemeParams): Promise<string> {
      const iterations = params.iterations ?? DEFAULT_ITERATIONS;
      const salt = randomSalt(SALT_LENGTH);
      const key = await pbkdf2Async(digest, password, salt, iterations, KDF_DIGEST_LENGTH[digest]);
      if (layout === 'opendj') return `{${name}}${iterations}:${encodeBase64(Buffer.concat([key, salt]))}`;
      return `{${name}}${iterations}$${encodeAdaptedBase64(salt)}$${encodeAdaptedBase64(key)}`;
    },
    verify: (password: Uint8Array, value: string) => verifyValue(digest, password, value),
    cost: (value: string, _context: VerifyContext) => ({ iterations: parseValue(value, digest).iterations }),
  };
}

export const pbkdf2Schemes: readonly PasswordScheme[] = [
  pbkdf2Scheme('PBKDF2', 'sha1', 'openldap'),
  pbkdf2Scheme('PBKDF2-SHA1', 'sha1', 'openldap'),
  pbkdf2Scheme('PBKDF2-SHA256', 'sha256', 'openldap'),
  pbkdf2Scheme('PBKDF2-SHA512', 'sha512', 'openldap'),
  pbkdf2Scheme('PBKDF2-HMAC-SHA256', 'sha256', 'opendj'),
  pbkdf2Scheme('PBKDF2-HMAC-SHA512', 'sha512', 'opendj'),
];
