/**
 * 389 Directory Server's legacy `{PBKDF2_SHA256}` (pbkdf2_pwd.c):
 * base64( BE32(iterations) || salt[64] || dk[256] ), PBKDF2-HMAC-SHA256. Verify only: it
 * exists so a 389 directory can be migrated with its hashes; new values use a modern scheme.
 */
import type { PasswordScheme } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import { constantTimeEqual, decodeBase64 } from './encoding.js';
import { pbkdf2Async } from './kdf.js';

const SALT_LENGTH = 64;
const KEY_LENGTH = 256;
const TOTAL_LENGTH = 4 + SALT_LENGTH + KEY_LENGTH;
/** PBKDF2 runs its iterations once per 32-byte block of key. */
const KEY_BLOCKS = KEY_LENGTH / 32;
/** 389 never writes fewer and refuses fewer on verify. */
const MIN_ITERATIONS = 2048;

function parse(value: string): { iterations: number; salt: Buffer; key: Buffer } {
  const decoded = decodeBase64(value, 'the stored value');
  if (decoded.byteLength !== TOTAL_LENGTH) {
    throw new InvalidStoredValue(`decoded length is ${decoded.byteLength}, expected ${TOTAL_LENGTH}`);
  }
  const iterations = decoded.readUInt32BE(0);
  if (iterations < MIN_ITERATIONS) throw new InvalidStoredValue(`${iterations} iterations is below 389's minimum of ${MIN_ITERATIONS}`);
  return { iterations, salt: decoded.subarray(4, 4 + SALT_LENGTH), key: decoded.subarray(4 + SALT_LENGTH) };
}

export const pbkdf2Legacy389Scheme: PasswordScheme = {
  names: ['PBKDF2_SHA256'],
  description: '389 DS legacy PBKDF2-HMAC-SHA256: base64(iterations + salt64 + dk256); verify only',
  async verify(password, value) {
    const { iterations, salt, key } = parse(value);
    return constantTimeEqual(await pbkdf2Async('sha256', password, salt, iterations, KEY_LENGTH), key);
  },
  // The key is 8 blocks of SHA-256, each its own run of the iterations: 8 times the work of the count.
  cost: (value) => ({ iterations: parse(value).iterations * KEY_BLOCKS }),
};
