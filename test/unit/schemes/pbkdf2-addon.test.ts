/**
 * The PBKDF2 addon (native/pbkdf2) and schemes/kdf.ts's choice of backend: published vectors,
 * agreement with node:crypto on random inputs, argument checks, worker threads.
 * Without the addon built, its tests are skipped with a message; LEVELDAP_REQUIRE_NATIVE=1 (set by
 * .ci/run) makes its absence a failure.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes, randomInt } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import {
  addonPbkdf2Async, pbkdf2Addon, pbkdf2AddonError, pbkdf2Async, pbkdf2Backends, type KdfDigest,
} from '../../../schemes/kdf.js';
import { RFC_6070_SHA1, SHA256_VECTORS, SHA512_VECTORS, type Pbkdf2Vector } from '../../helpers/pbkdf2-vectors.js';

const NOT_BUILT = `the PBKDF2 addon did not load (${pbkdf2AddonError}); npm run build:native builds it`;
const skipWithoutAddon = { skip: pbkdf2Addon ? false : NOT_BUILT };
const DIGESTS: readonly KdfDigest[] = ['sha1', 'sha256', 'sha512'];
const ADDON_EVERYWHERE = { sha1: 'addon', sha256: 'addon', sha512: 'addon' };

const VECTORS: readonly (readonly [KdfDigest, Pbkdf2Vector])[] = [
  ...RFC_6070_SHA1.map((vector) => ['sha1', vector] as const),
  ...SHA256_VECTORS.map((vector) => ['sha256', vector] as const),
  ...SHA512_VECTORS.map((vector) => ['sha512', vector] as const),
];

const label = (digest: string, v: Pbkdf2Vector): string => `${digest} c=${v.c} dkLen=${v.dk.length / 2} P=${JSON.stringify(v.p)}`;

test('the PBKDF2 addon loaded (LEVELDAP_REQUIRE_NATIVE=1)', (t) => {
  if (process.env.LEVELDAP_REQUIRE_NATIVE !== '1') {
    t.skip('LEVELDAP_REQUIRE_NATIVE is not 1: the native fast path is not required here (.ci/run requires it)');
    return;
  }
  assert.equal(pbkdf2AddonError, undefined, 'the addon must load');
  assert.deepEqual(pbkdf2Backends(), ADDON_EVERYWHERE);
});

describe('published vectors through pbkdf2Async (whichever backend it uses)', () => {
  for (const [digest, v] of VECTORS) {
    test(label(digest, v), async () => {
      const key = await pbkdf2Async(digest, Buffer.from(v.p), Buffer.from(v.s), v.c, v.dk.length / 2);
      assert.equal(key.toString('hex'), v.dk);
    });
  }
});

describe('published vectors through the addon', skipWithoutAddon, () => {
  for (const [digest, v] of VECTORS) {
    test(label(digest, v), async () => {
      const key = await addonPbkdf2Async(digest, Buffer.from(v.p), Buffer.from(v.s), v.c, v.dk.length / 2);
      assert.equal(key.toString('hex'), v.dk);
    });
  }
});

describe('the addon against node:crypto', skipWithoutAddon, () => {
  /** A view at a random offset into a larger buffer, so the addon must honour byteOffset. */
  const randomView = (length: number): Buffer => randomBytes(length + 16).subarray(randomInt(0, 17)).subarray(0, length);

  test('600 random cases: passwords 0-300 bytes (beyond the 64- and 128-byte blocks), salts 0-200, 1-50 iterations, 1-200 bytes out', async () => {
    const passwordLengths = [0, 1, 63, 64, 65, 127, 128, 129, 300];
    const saltLengths = [0, 51, 52, 55, 56, 63, 64, 111, 112, 119, 120, 127, 128, 200]; // around each block's padding
    const cases = Array.from({ length: 600 }, (_, n) => ({
      digest: DIGESTS[n % 3]!,
      password: randomView(passwordLengths[Math.floor(n / 3)] ?? randomInt(0, 301)),
      salt: randomView(saltLengths[n % saltLengths.length] ?? randomInt(0, 201)),
      iterations: randomInt(1, 51),
      length: randomInt(1, 201),
    }));
    await Promise.all(cases.map(async ({ digest, password, salt, iterations, length }) => {
      const expected = pbkdf2Sync(password, salt, iterations, length, digest).toString('hex');
      const key = await addonPbkdf2Async(digest, password, salt, iterations, length);
      assert.equal(key.toString('hex'), expected,
        `${digest} password=${password.toString('hex')} salt=${salt.toString('hex')} c=${iterations} dkLen=${length}`);
    }));
  });

  test('the inputs are copied when the call is made: changing them afterwards changes nothing', async () => {
    const password = Buffer.from('correct horse battery staple');
    const salt = Buffer.from('0123456789abcdef');
    const expected = pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('hex');
    const pending = addonPbkdf2Async('sha256', password, salt, 1000, 32);
    password.fill(0);
    salt.fill(0);
    assert.equal((await pending).toString('hex'), expected);
  });

  test('the longest key, 1,024 bytes (52, 32 and 16 blocks of the three digests)', async () => {
    for (const digest of DIGESTS) {
      const key = await addonPbkdf2Async(digest, Buffer.from('p'), Buffer.from('s'), 3, 1024);
      assert.deepEqual(key, pbkdf2Sync('p', 's', 3, 1024, digest), digest);
    }
  });

  test('many derivations at once in the thread pool agree with node:crypto (no state shared between jobs)', async () => {
    const jobs = Array.from({ length: 64 }, (_, n) => ({ digest: DIGESTS[n % 3]!, password: randomBytes(n), salt: randomBytes(16), iterations: 100 + n }));
    const keys = await Promise.all(jobs.map(({ digest, password, salt, iterations }) => addonPbkdf2Async(digest, password, salt, iterations, 40)));
    jobs.forEach(({ digest, password, salt, iterations }, n) => assert.deepEqual(keys[n], pbkdf2Sync(password, salt, iterations, 40, digest), `job ${n}`));
  });

  test('the event loop keeps running while the addon hashes (libuv thread pool)', async () => {
    let ticks = 0;
    const timer = setInterval(() => { ticks += 1; }, 1);
    await addonPbkdf2Async('sha256', Buffer.from('x'), Buffer.from('salt'), 300_000, 32);
    clearInterval(timer);
    assert.ok(ticks >= 3, `the event loop ran ${ticks} timer callbacks during the hash`);
  });
});

describe('the addon refuses bad arguments with an exception', skipWithoutAddon, () => {
  const ok = { digest: 'sha256', password: Buffer.from('p'), salt: Buffer.from('s'), iterations: 1, length: 32, callback: () => {} };
  type Args = typeof ok;
  const BAD: readonly [string, Partial<Record<keyof Args, unknown>>, ErrorConstructor, RegExp][] = [
    ['digest md5', { digest: 'md5' }, TypeError, /digest must be 'sha1', 'sha256' or 'sha512'/],
    ['digest SHA256 (names are lower case)', { digest: 'SHA256' }, TypeError, /digest/],
    ['digest with a NUL after sha256', { digest: 'sha256\0' }, TypeError, /digest/],
    ['digest sha384', { digest: 'sha384' }, TypeError, /digest/],
    ['digest longer than any name', { digest: 'sha256sha256' }, TypeError, /digest/],
    ['digest empty', { digest: '' }, TypeError, /digest/],
    ['digest not a string', { digest: 256 }, TypeError, /digest/],
    ['password a string', { password: 'p' }, TypeError, /password must be a Uint8Array or Buffer/],
    ['password a Uint16Array', { password: new Uint16Array(4) }, TypeError, /password/],
    ['password an ArrayBuffer', { password: new ArrayBuffer(4) }, TypeError, /password/],
    ['password missing', { password: undefined }, TypeError, /password/],
    ['salt a DataView', { salt: new DataView(new ArrayBuffer(4)) }, TypeError, /salt must be a Uint8Array or Buffer/],
    ['salt null', { salt: null }, TypeError, /salt/],
    ['iterations 0', { iterations: 0 }, RangeError, /iterations must be an integer from 1 to 2147483647/],
    ['iterations -1', { iterations: -1 }, RangeError, /iterations/],
    ['iterations 1.5', { iterations: 1.5 }, RangeError, /iterations/],
    ['iterations 2^31', { iterations: 2 ** 31 }, RangeError, /iterations/],
    ['iterations NaN', { iterations: Number.NaN }, RangeError, /iterations/],
    ['iterations Infinity', { iterations: Number.POSITIVE_INFINITY }, RangeError, /iterations/],
    ['iterations a string', { iterations: '10' }, TypeError, /iterations/],
    ['iterations a bigint', { iterations: 10n }, TypeError, /iterations/],
    ['length 0', { length: 0 }, RangeError, /length must be an integer from 1 to 1024/],
    ['length 1025', { length: 1025 }, RangeError, /length/],
    ['length missing', { length: undefined }, TypeError, /length/],
    ['callback missing', { callback: undefined }, TypeError, /callback must be a function/],
    ['callback an object', { callback: {} }, TypeError, /callback/],
  ];

  for (const [name, change, type, message] of BAD) {
    test(name, () => {
      const args = { ...ok, ...change };
      const call = pbkdf2Addon!.pbkdf2 as (...values: unknown[]) => void;
      assert.throws(() => call(args.digest, args.password, args.salt, args.iterations, args.length, args.callback), (error: unknown) => {
        assert.ok(error instanceof type, `${String(error)} is a ${type.name}`);
        assert.match((error as Error).message, message);
        return true;
      });
    });
  }

  test('no arguments at all', () => {
    assert.throws(() => (pbkdf2Addon!.pbkdf2 as () => void)(), TypeError);
  });

  test('after all of that, a good call still works', async () => {
    const key = await addonPbkdf2Async('sha256', ok.password, ok.salt, 1, 32);
    assert.deepEqual(key, pbkdf2Sync(ok.password, ok.salt, 1, 32, 'sha256'));
  });

  test('through pbkdf2Async a bad argument is a rejection, not a throw', async () => {
    await assert.rejects(pbkdf2Async('sha256', Buffer.from('p'), Buffer.from('s'), 0, 32), RangeError);
  });
});

describe('worker threads', () => {
  const WORKER = new URL('../../helpers/pbkdf2-worker.js', import.meta.url);
  const vector = SHA256_VECTORS.find((v) => v.c === 4096 && v.p === 'password')!;

  interface WorkerReport {
    direct?: string;
    chosen: string;
    backends: Record<KdfDigest, string>;
    loadError?: string;
  }

  /** The worker's report once it has exited; `busyMs`: this thread is kept busy that long first, as a loaded machine may. */
  async function runWorker(env: NodeJS.ProcessEnv, busyMs = 0): Promise<WorkerReport> {
    const worker = new Worker(WORKER, { workerData: vector, env });
    for (const until = performance.now() + busyMs; performance.now() < until;);
    // Both listeners first: a worker that exits right after posting has its message delivered while
    // it exits, and 'exit' emitted in the same turn, before a listener added after the message.
    const exited = once(worker, 'exit');
    const [report] = await once(worker, 'message') as [WorkerReport];
    await exited;
    return report;
  }

  test('two workers load the addon beside this thread and derive the vector', skipWithoutAddon, async () => {
    const env = { ...process.env, LEVELDAP_PBKDF2: '' };
    const reports = await Promise.all([runWorker(env), runWorker(env)]);
    for (const report of reports) {
      assert.equal(report.loadError, undefined);
      assert.equal(report.direct, vector.dk);
      assert.equal(report.chosen, vector.dk);
      assert.deepEqual(report.backends, ADDON_EVERYWHERE);
    }
  });

  test('a worker that reported and exited while this thread was busy is seen to exit (CI once hung here: the exit came before its listener)', async () => {
    const report = await runWorker({ ...process.env, LEVELDAP_PBKDF2: 'node' }, 2000);
    assert.equal(report.chosen, vector.dk);
  });

  test('LEVELDAP_PBKDF2=node makes every digest use node:crypto', async () => {
    const report = await runWorker({ ...process.env, LEVELDAP_PBKDF2: 'node' });
    assert.deepEqual(report.backends, { sha1: 'node:crypto', sha256: 'node:crypto', sha512: 'node:crypto' });
    assert.equal(report.chosen, vector.dk);
  });
});
