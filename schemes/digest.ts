/**
 * The hash primitives behind the salted-digest schemes. Three implementations exist for each
 * algorithm; `scripts/bench-primitives` measures them and the fastest is chosen below
 * (numbers in the README, "Choosing primitives").
 */
import { createHash, hash } from 'node:crypto';
import { md5, sha1 } from '@noble/hashes/legacy.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';

export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';
export type DigestFunction = (password: Uint8Array, salt: Uint8Array) => Uint8Array;

export const DIGEST_LENGTH: Readonly<Record<DigestAlgorithm, number>> = {
  md5: 16, sha1: 20, sha256: 32, sha384: 48, sha512: 64,
};

/** node:crypto (OpenSSL), one Hash object per call. */
export function nodeDigest(algorithm: DigestAlgorithm): DigestFunction {
  return (password, salt) => createHash(algorithm).update(password).update(salt).digest();
}

/** node:crypto's one-shot hash() (Node >= 20.12): no Hash object, one concatenation. */
export function nodeOneShotDigest(algorithm: DigestAlgorithm): DigestFunction {
  return (password, salt) => hash(algorithm, Buffer.concat([password, salt]), 'buffer');
}

const NOBLE = { md5, sha1, sha256, sha384, sha512 };

/** @noble/hashes (pure JavaScript). */
export function nobleDigest(algorithm: DigestAlgorithm): DigestFunction {
  const hash = NOBLE[algorithm];
  return (password, salt) => hash.create().update(password).update(salt).digest();
}

/**
 * The measured choice: node's one-shot hash() is the fastest or within noise of it for every
 * algorithm at bind-sized inputs; noble's SHA-1 and SHA-256 tie it, its 64-bit SHA-384/512 are
 * 2-4x slower, and a Hash object per call (createHash) costs 30-60% more.
 */
const CHOSEN: Readonly<Record<DigestAlgorithm, DigestFunction>> = {
  md5: nodeOneShotDigest('md5'),
  sha1: nodeOneShotDigest('sha1'),
  sha256: nodeOneShotDigest('sha256'),
  sha384: nodeOneShotDigest('sha384'),
  sha512: nodeOneShotDigest('sha512'),
};

export function digest(algorithm: DigestAlgorithm, password: Uint8Array, salt: Uint8Array): Uint8Array {
  return CHOSEN[algorithm](password, salt);
}
