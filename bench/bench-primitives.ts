/**
 * Which primitive is faster for each scheme: node:crypto (OpenSSL), @noble/hashes (pure JS), or
 * for PBKDF2-SHA1/SHA256 the nettle addon (native/nettle-pbkdf2)?
 * Measures one call at a time on one core with the inputs the schemes really hash (a short
 * password plus an 8-byte salt; PBKDF2 at 10,000 iterations with a 16-byte salt).
 * Run: npm run build && node dist/bench/bench-primitives.js
 */
import { pbkdf2 as noblePbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha1, md5 } from '@noble/hashes/legacy.js';
import { sha256, sha512, sha384 } from '@noble/hashes/sha2.js';
import { createHash, hash, pbkdf2Sync } from 'node:crypto';
import type { DigestAlgorithm } from '../schemes/digest.js';
import {
  KDF_DIGEST_LENGTH, nettleAddon, nettleLoadError, nettlePbkdf2Async, nodePbkdf2Async, pbkdf2Backends, type KdfDigest,
} from '../schemes/kdf.js';
import { formatMicros, formatRate, timeOperation } from '../src/bench-schemes/timing.js';
import { formatTable } from '../src/cli/support/table.js';

const PASSWORD = Buffer.from('correct horse battery staple');
const SALT8 = Buffer.alloc(8, 7);
const SALT16 = Buffer.alloc(16, 7);
const ITERATIONS = 10_000;
const OPTIONS = { minMillis: 1000, minOperations: 5 };
const NOBLE_KDF = { sha1, sha256, sha512 };
const NOBLE = { md5, sha1, sha256, sha384, sha512 };

type DigestFunction = (password: Uint8Array, salt: Uint8Array) => Uint8Array;

/** The three candidates for the salted digests: a Hash object per call, one-shot hash(), noble. */
const nodeDigest = (algorithm: DigestAlgorithm): DigestFunction =>
  (password, salt) => createHash(algorithm).update(password).update(salt).digest();
const nodeOneShotDigest = (algorithm: DigestAlgorithm): DigestFunction =>
  (password, salt) => hash(algorithm, Buffer.concat([password, salt]), 'buffer');
const nobleDigest = (algorithm: DigestAlgorithm): DigestFunction =>
  (password, salt) => NOBLE[algorithm].create().update(password).update(salt).digest();

type Row = [string, string, string, string];

async function row(label: string, implementation: string, operation: () => unknown): Promise<Row> {
  const timing = await timeOperation(operation, OPTIONS);
  return [label, implementation, formatMicros(timing.microsPerOp), formatRate(timing.opsPerSecond)];
}

async function digestRows(algorithm: DigestAlgorithm): Promise<Row[]> {
  const node = nodeDigest(algorithm);
  const noble = nobleDigest(algorithm);
  const oneShot = nodeOneShotDigest(algorithm);
  return [
    await row(algorithm, 'node:crypto createHash', () => node(PASSWORD, SALT8)),
    await row(algorithm, 'node:crypto hash()', () => oneShot(PASSWORD, SALT8)),
    await row(algorithm, '@noble/hashes', () => noble(PASSWORD, SALT8)),
  ];
}

async function kdfRows(digest: KdfDigest): Promise<Row[]> {
  const label = `pbkdf2-${digest} ${ITERATIONS}`;
  const length = KDF_DIGEST_LENGTH[digest];
  const rows = [
    await row(label, 'node:crypto async', () => nodePbkdf2Async(digest, PASSWORD, SALT16, ITERATIONS, length)),
    await row(label, 'node:crypto sync', () => pbkdf2Sync(PASSWORD, SALT16, ITERATIONS, length, digest)),
  ];
  if (digest !== 'sha512' && nettleAddon) {
    rows.push(await row(label, 'nettle addon async', () => nettlePbkdf2Async(digest, PASSWORD, SALT16, ITERATIONS, length)));
  }
  rows.push(await row(label, '@noble/hashes', () => noblePbkdf2(NOBLE_KDF[digest], PASSWORD, SALT16, { c: ITERATIONS, dkLen: length })));
  return rows;
}

const rows: Row[] = [];
for (const algorithm of ['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const) rows.push(...(await digestRows(algorithm)));
for (const digest of ['sha1', 'sha256', 'sha512'] as const) rows.push(...(await kdfRows(digest)));
process.stdout.write(formatTable([['PRIMITIVE', 'IMPLEMENTATION', 'µs/op', 'ops/s (1 core)'], ...rows], new Set([2, 3])));
process.stdout.write(`Node ${process.version}, one call at a time.\n`);
if (!nettleAddon) process.stdout.write(`No nettle rows: ${nettleLoadError} (npm run build:native)\n`);
const backends = pbkdf2Backends();
process.stdout.write(`pbkdf2Async uses: ${Object.entries(backends).map(([digest, backend]) => `${digest} ${backend}`).join(', ')}\n`);
