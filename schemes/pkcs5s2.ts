/**
 * Atlassian `{PKCS5S2}` (Crowd, Confluence; read by OpenDJ): base64( salt[16] || dk[32] ),
 * PBKDF2-HMAC-SHA1 with a fixed 10,000 iterations. The only layout with the salt first.
 */
import type { PasswordScheme } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import { constantTimeEqual, decodeBase64, encodeBase64, randomSalt } from './encoding.js';
import { pbkdf2Async } from './kdf.js';

const SALT_LENGTH = 16;
const KEY_LENGTH = 32;
const ITERATIONS = 10_000;

export const pkcs5s2Scheme: PasswordScheme = {
  names: ['PKCS5S2'],
  description: 'Atlassian PBKDF2-HMAC-SHA1, 10000 iterations: base64(salt16 + dk32)',
  async encode(password) {
    const salt = randomSalt(SALT_LENGTH);
    const key = await pbkdf2Async('sha1', password, salt, ITERATIONS, KEY_LENGTH);
    return `{PKCS5S2}${encodeBase64(Buffer.concat([salt, key]))}`;
  },
  async verify(password, value) {
    const decoded = decodeBase64(value, 'the stored value');
    if (decoded.byteLength !== SALT_LENGTH + KEY_LENGTH) {
      throw new InvalidStoredValue(`decoded length is ${decoded.byteLength}, expected ${SALT_LENGTH + KEY_LENGTH}`);
    }
    const salt = decoded.subarray(0, SALT_LENGTH);
    const key = await pbkdf2Async('sha1', password, salt, ITERATIONS, KEY_LENGTH);
    return constantTimeEqual(key, decoded.subarray(SALT_LENGTH));
  },
  cost: () => ({ iterations: ITERATIONS }),
};
