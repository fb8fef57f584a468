/**
 * PBKDF2, off the event loop (libuv's thread pool): SHA-1, SHA-256 and SHA-512 through the addon
 * in native/pbkdf2 (built at install), which runs the OpenSSL block functions inside Node.js
 * under a loop that keeps HMAC's keyed states; node:crypto when the addon is not built or
 * LEVELDAP_PBKDF2=node. node:crypto's PBKDF2 (OpenSSL 3.0's, through EVP on every iteration)
 * spends 1.5-1.9x the addon's time per iteration, nettle's
 * pbkdf2_hmac_sha1/sha256 (which an earlier addon ran) 1.15-1.3x (docs/performance.md).
 */
import { pbkdf2 } from 'node:crypto';
import { loadSchemeAddon } from './addon.js';

export type KdfDigest = 'sha1' | 'sha256' | 'sha512';
type Pbkdf2Backend = 'addon' | 'node:crypto';

export const KDF_DIGEST_LENGTH: Readonly<Record<KdfDigest, number>> = { sha1: 20, sha256: 32, sha512: 64 };

/** native/pbkdf2/pbkdf2.c */
interface Pbkdf2Addon {
  pbkdf2(
    digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
    callback: (error: Error | null, key: Buffer) => void,
  ): void;
}

const loaded = loadSchemeAddon<Pbkdf2Addon>('pbkdf2', 'pbkdf2');
/** The addon, or undefined when it is not built or did not load (then `pbkdf2AddonError` says why). */
export const pbkdf2Addon: Pbkdf2Addon | undefined = loaded.addon;
export const pbkdf2AddonError: string | undefined = loaded.error;

const useAddon = pbkdf2Addon !== undefined && process.env.LEVELDAP_PBKDF2 !== 'node';

/** Which backend `pbkdf2Async` uses (fixed when this module loads), the same for every digest. */
export function pbkdf2Backends(): Record<KdfDigest, Pbkdf2Backend> {
  const backend: Pbkdf2Backend = useAddon ? 'addon' : 'node:crypto';
  return { sha1: backend, sha256: backend, sha512: backend };
}

export function nodePbkdf2Async(
  digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, iterations, length, digest, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Rejects when the addon did not load. */
export function addonPbkdf2Async(
  digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (pbkdf2Addon === undefined) throw new Error(`the PBKDF2 addon did not load: ${pbkdf2AddonError}`);
    pbkdf2Addon.pbkdf2(digest, password, salt, iterations, length, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function pbkdf2Async(
  digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return useAddon
    ? addonPbkdf2Async(digest, password, salt, iterations, length)
    : nodePbkdf2Async(digest, password, salt, iterations, length);
}
