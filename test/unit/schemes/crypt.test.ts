/**
 * {CRYPT}, 389 DS's {CRYPT-*} names and {BCRYPT} through libxcrypt: published vectors, the
 * costs read from stored strings (and refused above the limits before hashing), and the
 * passwords crypt(3) cannot take.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry } from '../../../src/password/index.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { cryptCost, cryptRegions } from '../../../schemes/crypt.js';
import { yescryptHashes } from '../../helpers/yescrypt-hashes.js';
import { skipUnavailable } from '../../helpers/native-schemes.js';

const registry = createRegistry();
const skip = skipUnavailable('CRYPT');

test('the crypt(3) addon loaded (LEVELDAP_REQUIRE_NATIVE=1 fails without it)', { skip }, () => {
  assert.equal(registry.require('CRYPT').unavailable, undefined);
});

/** Ulrich Drepper's SHA-crypt specification and the crypt_blowfish (OpenBSD bcrypt) test vectors. */
const VECTORS: readonly [string, string][] = [
  ['Hello world!', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'],
  ['Hello world!', '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'],
  ['Hello world!', '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.'],
  ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
];

describe('{CRYPT}: published vectors', { skip }, () => {
  for (const [password, hash] of VECTORS) {
    test(`${hash.slice(0, 20)}... verifies, a wrong password does not`, async () => {
      assert.equal((await registry.verify(Buffer.from(password), `{CRYPT}${hash}`)).status, 'match');
      assert.equal((await registry.verify(Buffer.from(`${password}x`), `{CRYPT}${hash}`)).status, 'mismatch');
    });
  }

  test("389 DS's names and {BCRYPT} verify the same strings", async () => {
    for (const name of ['CRYPT-SHA512', 'CRYPT-SHA256', 'BCRYPT', 'CRYPT-MD5', 'CRYPT-YESCRYPT']) {
      for (const [password, hash] of VECTORS) {
        assert.equal((await registry.verify(Buffer.from(password), `{${name}}${hash}`)).status, 'match', `${name} ${hash}`);
      }
    }
  });
});

describe('{CRYPT}: what a stored string costs', { skip }, () => {
  test('SHA-crypt rounds (5,000 without rounds=, at least 1,000), bcrypt cost, yescrypt memory', () => {
    assert.deepEqual(cryptCost('$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'), { iterations: 5000 });
    assert.deepEqual(cryptCost(VECTORS[2]![1]), { iterations: 10_000 });
    assert.deepEqual(cryptCost(VECTORS[3]![1]), { bcryptCost: 5 });
    // libxcrypt's default cost 5 ("j9T": N = 2^12, r = 32) is 16 MiB; cost 1 ("j75") 1 MiB; cost 11 ("jFT") 1 GiB
    assert.deepEqual(cryptCost('$y$j9T$xi0sHjnQ/G3oTYQM$wH8K.9tx9WQt03jP.yd7jGPuvgQNuJHMOEBAcibArr.'), { memoryKiB: 16_384, passes: 1, lanes: 1 });
    assert.equal(cryptCost('$y$j75$0xB0dLe7ShKf8ni4sBsWd.$x').memoryKiB, 1024);
    assert.equal(cryptCost('$y$jFT$ySp745ILUsXDTOu0KJIxC1$x').memoryKiB, 1_048_576);
  });

  test('a planted costly string is refused before any hashing, naming the limit', async () => {
    const started = performance.now();
    const cases: [string, RegExp][] = [
      ['{CRYPT}$6$rounds=999999999$salt$hash', /--max-iterations/],
      ['{BCRYPT}$2a$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', /--max-bcrypt-cost/],
      ['{CRYPT}$y$jFT$ySp745ILUsXDTOu0KJIxC1$cFzR9INdY8K3u8Zbf0JmY/sN98mt3.yu05hjqYbHTD8', /--max-hash-memory/],
    ];
    for (const [stored, limit] of cases) {
      const result = await registry.verify(Buffer.from('secret'), stored);
      assert.equal(result.status, 'invalid', stored);
      assert.match(result.status === 'invalid' ? result.reason : '', limit);
    }
    assert.ok(performance.now() - started < 1000, 'nothing was hashed');
  });

  test('yescrypt\'s scrypt-compatible and WORM flavours (lanes run one after another: 5.7-87 s within every limit) are refused, not verified', async () => {
    const started = performance.now();
    for (const stored of ['{CRYPT}$y$/DT0CC$saltsaltsaltsalt$hash', '{CRYPT}$y$/DT.5$saltsaltsaltsalt$hash', '{CRYPT}$y$.DT.5$saltsaltsaltsalt$hash']) {
      const result = await registry.verify(Buffer.from('secret'), stored);
      assert.equal(result.status, 'invalid', stored);
      assert.match(result.status === 'invalid' ? result.reason : '', /flavour/, stored);
    }
    assert.ok(performance.now() - started < 1000, 'nothing was hashed');
  });

  test('methods whose cost is not read here are refused, not verified', async () => {
    for (const stored of ['{CRYPT}$7$CU..../....mB5goFNrDe0lKrtdesd8t0$x', '{CRYPT}_J9..EMn1abcdefghijk', '{CRYPT}$sha1$40000$salt$hash', '{CRYPT}']) {
      assert.equal((await registry.verify(Buffer.from('secret'), stored)).status, 'invalid', stored);
    }
  });
});

describe('{CRYPT}: passwords crypt(3) cannot take', { skip }, () => {
  test('a password with a NUL byte matches nothing, not even the value of the text before the NUL', async () => {
    const stored = await registry.encode('CRYPT', Buffer.from('pass'));
    assert.equal((await registry.verify(Buffer.from('pass'), stored)).status, 'match');
    assert.equal((await registry.verify(Buffer.from('pass\0word'), stored)).status, 'mismatch');
    await assert.rejects(registry.encode('CRYPT', Buffer.from('pass\0word')), /NUL/);
  });

  test('one longer than 511 bytes is refused on write and matches nothing', async () => {
    await assert.rejects(registry.encode('CRYPT-SHA512', Buffer.alloc(512, 'a')), /at most 511 bytes/);
    const stored = await registry.encode('CRYPT-SHA512', Buffer.alloc(511, 'a'));
    assert.equal((await registry.verify(Buffer.alloc(511, 'a'), stored)).status, 'match');
    assert.equal((await registry.verify(Buffer.alloc(512, 'a'), stored)).status, 'mismatch');
  });
});

describe('{CRYPT}: what is written', { skip }, () => {
  test('yescrypt by default, SHA-512-crypt with rounds, bcrypt $2a$ for {BCRYPT}', async () => {
    assert.match(await registry.encode('CRYPT', Buffer.from('secret')), /^\{CRYPT\}\$y\$j9T\$/);
    assert.match(await registry.encode('CRYPT', Buffer.from('secret'), { rounds: 656_000 }), /^\{CRYPT\}\$6\$rounds=656000\$/);
    assert.match(await registry.encode('CRYPT-SHA512', Buffer.from('secret')), /^\{CRYPT-SHA512\}\$6\$[^$]{16}\$/);
    assert.match(await registry.encode('BCRYPT', Buffer.from('secret'), { cost: 4 }), /^\{BCRYPT\}\$2a\$04\$/);
  });

  test('a cost above the limits is refused before hashing', async () => {
    await assert.rejects(registry.encode('BCRYPT', Buffer.from('secret'), { cost: 31 }), /cost for \{BCRYPT\} must be an integer from 4 to 14/);
    await assert.rejects(registry.encode('CRYPT', Buffer.from('secret'), { cost: 11 }), /from 1 to 9/);
  });
});

describe('{CRYPT}: yescrypt regions kept between hashes (native/xcrypt/region-pool.h)', { skip }, () => {
  test('libcrypt\'s mmap and munmap go through the pool here (x86-64 or arm64 Linux, glibc)', { skip: process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch) }, () => {
    assert.equal(cryptRegions()?.hooked, true);
  });

  test('hashes of 8, 16 and 32 MiB, one at a time and at once, reuse kept regions and equal those of a process that keeps none', async () => {
    const before = cryptRegions()!;
    const hashes = await yescryptHashes();
    const after = cryptRegions()!;
    if (after.hooked) {
      assert.ok(after.reused - before.reused >= hashes.length - 8, `${after.reused - before.reused} of ${hashes.length} hashes reused a region`);
      assert.ok(after.kept <= 16, `${after.kept} regions kept`);
    }
    const script = fileURLToPath(new URL('../../helpers/yescrypt-hashes.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [script], { env: { ...process.env, LEVELDAP_XCRYPT_KEEP_REGIONS: '0' } });
    assert.deepEqual(JSON.parse(stdout), hashes);
  });
});
