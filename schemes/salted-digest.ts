/**
 * {SHA} {SSHA} {SHA256} {SSHA256} {SHA384} {SSHA384} {SHA512} {SSHA512} {MD5} {SMD5}:
 * base64( H(password || salt) || salt ), the layout of OpenLDAP (core and contrib pw-sha2),
 * 389 Directory Server and OpenDJ. Verification follows 389: any trailing bytes after the
 * digest are salt, under the salted and the unsalted names alike, so values from every
 * server verify whatever salt length they chose.
 */
import type { PasswordScheme, SchemeParams } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import { constantTimeEqual, decodeBase64, encodeBase64, randomSalt } from './encoding.js';
import { DIGEST_LENGTH, digest, type DigestAlgorithm } from './digest.js';

/** Salt bytes written by default: 8, as 389 DS and OpenDJ write (slappasswd writes 4 for SSHA). */
const DEFAULT_SALT_LENGTH = 8;

function saltedScheme(name: string, algorithm: DigestAlgorithm, label: string): PasswordScheme {
  return {
    names: [name],
    description: `salted ${label}: base64(${label}(password + salt) + salt)`,
    params: [{
      name: 'saltLength', default: DEFAULT_SALT_LENGTH, min: 4, max: 64,
      description: 'random salt bytes written after the digest',
    }],
    async encode(password: Uint8Array, params: SchemeParams): Promise<string> {
      const salt = randomSalt(params.saltLength ?? DEFAULT_SALT_LENGTH);
      return `{${name}}${encodeBase64(Buffer.concat([digest(algorithm, password, salt), salt]))}`;
    },
    verify: async (password, value) => verifySalted(algorithm, password, value),
  };
}

function plainScheme(name: string, algorithm: DigestAlgorithm, label: string): PasswordScheme {
  return {
    names: [name],
    description: `unsalted ${label}: base64(${label}(password)); weak, for migration`,
    async encode(password: Uint8Array): Promise<string> {
      return `{${name}}${encodeBase64(digest(algorithm, password, new Uint8Array(0)))}`;
    },
    verify: async (password, value) => verifySalted(algorithm, password, value),
  };
}

function verifySalted(algorithm: DigestAlgorithm, password: Uint8Array, value: string): boolean {
  const decoded = decodeBase64(value, 'the stored value');
  const length = DIGEST_LENGTH[algorithm];
  if (decoded.byteLength < length) {
    throw new InvalidStoredValue(`decoded length ${decoded.byteLength} is shorter than the ${length}-byte digest`);
  }
  const expected = decoded.subarray(0, length);
  return constantTimeEqual(digest(algorithm, password, decoded.subarray(length)), expected);
}

export const saltedDigestSchemes: readonly PasswordScheme[] = [
  plainScheme('SHA', 'sha1', 'SHA-1'),
  saltedScheme('SSHA', 'sha1', 'SHA-1'),
  plainScheme('SHA256', 'sha256', 'SHA-256'),
  saltedScheme('SSHA256', 'sha256', 'SHA-256'),
  plainScheme('SHA384', 'sha384', 'SHA-384'),
  saltedScheme('SSHA384', 'sha384', 'SHA-384'),
  plainScheme('SHA512', 'sha512', 'SHA-512'),
  saltedScheme('SSHA512', 'sha512', 'SHA-512'),
  plainScheme('MD5', 'md5', 'MD5'),
  saltedScheme('SMD5', 'md5', 'MD5'),
];
