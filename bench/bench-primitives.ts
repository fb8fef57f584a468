/**
 * Which primitive is faster for each scheme: node:crypto (OpenSSL), @noble/hashes (pure JS), or
 * for PBKDF2 the PBKDF2 addon (native/pbkdf2: OpenSSL's block functions)? (nettle's PBKDF2, which
 * an earlier addon ran, is in docs/performance.md's record of 2026-12-04.) And for {ARGON2}, {CRYPT} and
 * {BCRYPT}, our libargon2 and libxcrypt addons against the npm bindings
 * (bench/password-hash-candidates.ts): Argon2id at OWASP's m=19456,t=2,p=1 and RFC 9106's
 * m=65536,t=3,p=4, bcrypt at cost 10 and 12, yescrypt at libxcrypt's cost 5, SHA-512-crypt and
 * SHA-256-crypt at 5,000 rounds (libxcrypt against the SHA-crypt addon, native/sha-crypt).
 * Measures one call at a time on one core with the inputs the schemes really hash (a short
 * password plus an 8-byte salt; PBKDF2 at 10,000 iterations with a 16-byte salt; the password
 * hashes with one 16-byte salt, every candidate checked to give the same hash before it is
 * timed). The password hashes are then timed with 2 and 4 calls in flight, as a server runs
 * them, with the longest event-loop stall: a binding that hashes on the JavaScript thread gains
 * nothing from concurrency and stalls the loop for a whole hash.
 * Run: npm run build && node dist/bench/bench-primitives.js
 */
import { pbkdf2 as noblePbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha1, md5 } from '@noble/hashes/legacy.js';
import { sha256, sha512, sha384 } from '@noble/hashes/sha2.js';
import { createHash, hash, pbkdf2Sync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { DigestAlgorithm } from '../schemes/digest.js';
import {
  KDF_DIGEST_LENGTH, addonPbkdf2Async, nodePbkdf2Async, pbkdf2Addon, pbkdf2AddonError, pbkdf2Backends, type KdfDigest,
} from '../schemes/kdf.js';
import { formatMicros, formatRate, timeConcurrently, timeOperation, type TimingOptions } from '../src/bench-schemes/timing.js';
import { formatTable } from '../src/cli/support/table.js';
import {
  ARGON2_CANDIDATES, ARGON2_COSTS, BCRYPT_CANDIDATES, SHA_CRYPT_CANDIDATES, YESCRYPT_CANDIDATES, bcryptSetting, checkArgon2,
  checkCrypt, gensalt, type CryptCandidate,
} from './password-hash-candidates.js';

const PASSWORD = Buffer.from('correct horse battery staple');
const SALT8 = Buffer.alloc(8, 7);
const SALT16 = Buffer.alloc(16, 7);
const ITERATIONS = 10_000;
const OPTIONS = { minMillis: 1000, minOperations: 5 };
/** The password hashes take 1-500 ms each: a short run, so the whole bench stays near 2 minutes. */
const HASH_OPTIONS = { minMillis: 400, minOperations: 3 };
/** With several in flight: at least two calls per lane. */
const concurrentOptions = (inFlight: number): TimingOptions => ({ minMillis: 600, minOperations: 2 * inFlight });
const IN_FLIGHT = [2, 4] as const;
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
  if (pbkdf2Addon) rows.push(await row(label, 'PBKDF2 addon async', () => addonPbkdf2Async(digest, PASSWORD, SALT16, ITERATIONS, length)));
  rows.push(await row(label, '@noble/hashes', () => noblePbkdf2(NOBLE_KDF[digest], PASSWORD, SALT16, { c: ITERATIONS, dkLen: length })));
  return rows;
}

/** One password hash to time: a label, an implementation and the call. */
interface HashCase {
  readonly label: string;
  readonly implementation: string;
  readonly operation: () => unknown;
}

/** [label, implementation, ops/s one at a time, ops/s with 2 and 4 in flight, 4 against 1, longest stall with 4]. */
type ConcurrencyRow = [string, string, string, string, string, string, string];

/** Times one case one call at a time (a Row), then with IN_FLIGHT calls at once (a ConcurrencyRow). */
async function hashRows(hashCase: HashCase): Promise<[Row, ConcurrencyRow]> {
  const { label, implementation, operation } = hashCase;
  const single = await timeOperation(operation, HASH_OPTIONS);
  const [two, four] = [
    await timeConcurrently(operation, IN_FLIGHT[0], concurrentOptions(IN_FLIGHT[0])),
    await timeConcurrently(operation, IN_FLIGHT[1], concurrentOptions(IN_FLIGHT[1])),
  ];
  return [
    [label, implementation, formatMicros(single.microsPerOp), formatRate(single.opsPerSecond)],
    [label, implementation, formatRate(single.opsPerSecond), formatRate(two.opsPerSecond), formatRate(four.opsPerSecond),
      `${(four.opsPerSecond / single.opsPerSecond).toFixed(2)}x`, four.longestStallMillis.toFixed(0)],
  ];
}

function argon2Cases(): HashCase[] {
  return ARGON2_COSTS.flatMap((cost) => ARGON2_CANDIDATES.map((candidate) => ({
    label: cost.label, implementation: candidate.name, operation: () => candidate.raw(cost),
  })));
}

function cryptCases(label: string, setting: string, candidates: readonly CryptCandidate[]): HashCase[] {
  return candidates.map((candidate) => ({ label, implementation: candidate.name, operation: () => candidate.hash(setting) }));
}

/** The crypt(3) methods: label, setting and candidates. */
function cryptMethods(): [string, string, readonly CryptCandidate[]][] {
  return [
    ['bcrypt cost 10', bcryptSetting(10), BCRYPT_CANDIDATES],
    ['bcrypt cost 12', bcryptSetting(12), BCRYPT_CANDIDATES],
    ['yescrypt cost 5', gensalt('$y$', 5), YESCRYPT_CANDIDATES],
    ['sha512-crypt 5000', gensalt('$6$', 5000), SHA_CRYPT_CANDIDATES],
    ['sha256-crypt 5000', gensalt('$5$', 5000), SHA_CRYPT_CANDIDATES],
  ];
}

/** Checks every candidate against the addon (throws on a mismatch), then times each. */
async function passwordHashSection(): Promise<{ checks: string[][]; cryptChecks: string[][]; rows: Row[]; concurrency: ConcurrencyRow[] }> {
  const checks: string[][] = [];
  for (const cost of ARGON2_COSTS) checks.push(...(await checkArgon2(cost)));
  const methods = cryptMethods();
  const cryptChecks: string[][] = [];
  for (const [label, setting, candidates] of methods) cryptChecks.push(...(await checkCrypt(label, setting, candidates)));
  const cases = [...argon2Cases(), ...methods.flatMap(([label, setting, candidates]) => cryptCases(label, setting, candidates))];
  const rows: Row[] = [];
  const concurrency: ConcurrencyRow[] = [];
  for (const hashCase of cases) {
    const [single, concurrent] = await hashRows(hashCase);
    rows.push(single);
    concurrency.push(concurrent);
  }
  return { checks, cryptChecks, rows, concurrency };
}

/** CPU seconds the whole machine has been busy (Linux's /proc/stat, in USER_HZ = 1/100 s), to tell what else ran. */
function machineBusySeconds(): number | undefined {
  try {
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!
      .trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq) / 100;
  } catch {
    return undefined;
  }
}

/** How much CPU other processes took while this ran: numbers taken with more than a little of it are suspect. */
function otherLoad(busyBefore: number | undefined, startedAt: number): string {
  const busy = machineBusySeconds();
  if (busy === undefined || busyBefore === undefined) return 'other processes\' CPU use unknown (no /proc/stat)';
  const { user, system } = process.cpuUsage();
  const seconds = (performance.now() - startedAt) / 1000;
  const others = Math.max(0, busy - busyBefore - (user + system) / 1e6);
  return `other processes used ${others.toFixed(1)} CPU-seconds during the ${seconds.toFixed(0)} s run (${((100 * others) / seconds).toFixed(0)}% of one core)`;
}

const startedAt = performance.now();
const busyBefore = machineBusySeconds();
const rows: Row[] = [];
for (const algorithm of ['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const) rows.push(...(await digestRows(algorithm)));
for (const digest of ['sha1', 'sha256', 'sha512'] as const) rows.push(...(await kdfRows(digest)));
const hashes = await passwordHashSection();
rows.push(...hashes.rows);
process.stdout.write(formatTable([['PRIMITIVE', 'IMPLEMENTATION', 'µs/op', 'ops/s (1 core)'], ...rows], new Set([2, 3])));
process.stdout.write(`Node ${process.version}, one call at a time.\n\n`);
process.stdout.write(formatTable([['ARGON2ID, 32 BYTES', 'IMPLEMENTATION', 'RAW HASH', 'PHC ORDER', '{ARGON2} VERIFIES ITS PHC', "IT VERIFIES THE ADDON'S"], ...hashes.checks]));
process.stdout.write('\n');
process.stdout.write(formatTable([['CRYPT(3)', 'IMPLEMENTATION', 'STRING', 'PREFIX WRITTEN'], ...hashes.cryptChecks]));
process.stdout.write('\n');
process.stdout.write(formatTable([
  ['PASSWORD HASH', 'IMPLEMENTATION', 'ops/s 1 at a time', '2 in flight', '4 in flight', '4 vs 1', 'longest loop stall ms (4)'], ...hashes.concurrency,
], new Set([2, 3, 4, 5, 6])));
process.stdout.write(`${cpus().length} cores, libuv thread pool ${process.env.UV_THREADPOOL_SIZE ?? 4} threads.\n`);
if (!pbkdf2Addon) process.stdout.write(`No PBKDF2 addon rows: ${pbkdf2AddonError} (npm run build:native)\n`);
const backends = pbkdf2Backends();
process.stdout.write(`${otherLoad(busyBefore, startedAt)}\n`);
process.stdout.write(`pbkdf2Async uses: ${Object.entries(backends).map(([digest, backend]) => `${digest} ${backend}`).join(', ')}\n`);
