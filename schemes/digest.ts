/**
 * The hash primitives behind the salted-digest schemes. Two implementations exist for each
 * algorithm; `scripts/bench-primitives` measures both and the faster one is chosen below
 * (numbers in the README, "Choosing primitives").
 */
import { createHash } from 'node:crypto';
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

const NOBLE = { md5, sha1, sha256, sha384, sha512 };

/** @noble/hashes (pure JavaScript). */
export function nobleDigest(algorithm: DigestAlgorithm): DigestFunction {
  const hash = NOBLE[algorithm];
  return (password, salt) => hash.create().update(password).update(salt).digest();
}

/** The measured choice: noble wins for the short inputs of MD5/SHA-1, OpenSSL for SHA-2. */
const CHOSEN: Readonly<Record<DigestAlgorithm, DigestFunction>> = {
  md5: nobleDigest('md5'),
  sha1: nobleDigest('sha1'),
  sha256: nodeDigest('sha256'),
  sha384: nodeDigest('sha384'),
  sha512: nodeDigest('sha512'),
};

export function digest(algorithm: DigestAlgorithm, password: Uint8Array, salt: Uint8Array): Uint8Array {
  return CHOSEN[algorithm](password, salt);
}
