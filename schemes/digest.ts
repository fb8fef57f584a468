/**
 * The hash behind the salted-digest schemes: node's one-shot hash(), the fastest of the
 * candidates `bench/bench-primitives.ts` measures at bind-sized inputs (numbers in docs/performance.md,
 * "Choosing primitives").
 */
import { hash } from 'node:crypto';

export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';

export const DIGEST_LENGTH: Readonly<Record<DigestAlgorithm, number>> = {
  md5: 16, sha1: 20, sha256: 32, sha384: 48, sha512: 64,
};

export function digest(algorithm: DigestAlgorithm, password: Uint8Array, salt: Uint8Array): Uint8Array {
  return hash(algorithm, Buffer.concat([password, salt]), 'buffer');
}
