/**
 * PBKDF2, off the event loop (libuv's thread pool), through the fastest backend for each digest
 * (`bench/bench-primitives.ts`):
 * - SHA-1 and SHA-256: nettle, through the addon in native/nettle-pbkdf2 (built at install);
 *   Node 20's OpenSSL 3.0 spends about twice as long per iteration;
 * - SHA-512, and every digest when the addon is not built or LEVELDAP_PBKDF2=node: node:crypto.
 */
import { pbkdf2 } from 'node:crypto';
import { loadSchemeAddon } from './addon.js';

export type KdfDigest = 'sha1' | 'sha256' | 'sha512';
export type NettleDigest = 'sha1' | 'sha256';
type Pbkdf2Backend = 'nettle' | 'node:crypto';

export const KDF_DIGEST_LENGTH: Readonly<Record<KdfDigest, number>> = { sha1: 20, sha256: 32, sha512: 64 };

/** native/nettle-pbkdf2/nettle-pbkdf2.c */
interface NettleAddon {
  pbkdf2(
    digest: NettleDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
    callback: (error: Error | null, key: Buffer) => void,
  ): void;
}

const loaded = loadSchemeAddon<NettleAddon>('nettle-pbkdf2', 'nettle_pbkdf2');
/** The addon, or undefined when it is not built or did not load (then `nettleLoadError` says why). */
export const nettleAddon: NettleAddon | undefined = loaded.addon;
export const nettleLoadError: string | undefined = loaded.error;

const useNettle = nettleAddon !== undefined && process.env.LEVELDAP_PBKDF2 !== 'node';

function isNettleDigest(digest: KdfDigest): digest is NettleDigest {
  return digest === 'sha1' || digest === 'sha256';
}

/** Which backend `pbkdf2Async` uses for each digest (fixed when this module loads). */
export function pbkdf2Backends(): Record<KdfDigest, Pbkdf2Backend> {
  const backend = (digest: KdfDigest): Pbkdf2Backend => (useNettle && isNettleDigest(digest) ? 'nettle' : 'node:crypto');
  return { sha1: backend('sha1'), sha256: backend('sha256'), sha512: backend('sha512') };
}

export function nodePbkdf2Async(
  digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, iterations, length, digest, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Rejects when the addon did not load. */
export function nettlePbkdf2Async(
  digest: NettleDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (nettleAddon === undefined) throw new Error(`the nettle PBKDF2 addon did not load: ${nettleLoadError}`);
    nettleAddon.pbkdf2(digest, password, salt, iterations, length, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function pbkdf2Async(
  digest: KdfDigest, password: Uint8Array, salt: Uint8Array, iterations: number, length: number,
): Promise<Buffer> {
  return useNettle && isNettleDigest(digest)
    ? nettlePbkdf2Async(digest, password, salt, iterations, length)
    : nodePbkdf2Async(digest, password, salt, iterations, length);
}
