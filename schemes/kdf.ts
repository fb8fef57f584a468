/**
 * PBKDF2 through node:crypto's asynchronous API: the work runs in libuv's thread pool, off
 * the event loop, and OpenSSL is several times faster than pure JavaScript
 * (`scripts/bench-primitives`).
 */
import { pbkdf2 } from 'node:crypto';

export type KdfDigest = 'sha1' | 'sha256' | 'sha512';

export const KDF_DIGEST_LENGTH: Readonly<Record<KdfDigest, number>> = { sha1: 20, sha256: 32, sha512: 64 };

export function pbkdf2Async(
  digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, iterations, length, digest, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
