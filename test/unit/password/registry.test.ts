import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry, SchemeError, parseStoredValue, type VerifyResult } from '../../../src/password/index.js';
import { resolveDefaultScheme } from '../../../src/policy/index.js';
import { UNAVAILABLE } from '../../helpers/native-schemes.js';

const PASSWORDS: Record<string, Buffer> = {
  ascii: Buffer.from('secret'),
  unicode: Buffer.from('pässwörd-密码-🔑', 'utf8'),
  empty: Buffer.alloc(0),
  '1 KiB': Buffer.alloc(1024, 'x'),
  'with NUL': Buffer.from('pass\0word'),
};

function collectingRegistry(maxIterations?: number) {
  const lines: string[] = [];
  const registry = createRegistry({ maxIterations, logger: { warn: (_fields, message) => lines.push(message) } });
  return { registry, lines };
}

const { registry } = collectingRegistry();
// Schemes whose addon did not build are tested in test/unit/schemes/ (skipped there with the reason).
const writable = registry.list().filter((entry) => entry.scheme.encode && !UNAVAILABLE.has(entry.scheme.names[0]!)).map((entry) => entry.scheme.names[0]!);
/** crypt(3) takes a C string of at most 511 bytes: these refuse the NUL and 1 KiB passwords (test/unit/schemes/crypt.test.ts). */
const CRYPT_NAMES = new Set(['CRYPT', 'CRYPT-YESCRYPT', 'CRYPT-SHA512', 'CRYPT-SHA256', 'BCRYPT']);

describe('every scheme verifies its own output', () => {
  for (const name of writable) {
    test(`{${name}}: right password matches, wrong does not, for every password shape`, async () => {
      for (const [label, password] of Object.entries(PASSWORDS)) {
        if (name === 'CLEAR' && label === 'with NUL') continue;
        if (CRYPT_NAMES.has(name) && (label === 'with NUL' || label === '1 KiB')) continue;
        if (label === 'empty') {
          const stored = await registry.encode(name, password, name.startsWith('PBKDF2') ? { iterations: 1000 } : {});
          assert.equal((await registry.verify(password, stored)).status, 'mismatch', 'an empty password never matches');
          continue;
        }
        const stored = await registry.encode(name, password, name.startsWith('PBKDF2') ? { iterations: 1000 } : {});
        assert.match(stored, new RegExp(`^\\{${name}\\}`), label);
        assert.equal((await registry.verify(password, stored)).status, 'match', `${label}: ${stored}`);
        const wrong = Buffer.concat([password, Buffer.from('!')]);
        assert.equal((await registry.verify(wrong, stored)).status, 'mismatch', label);
      }
    });
  }

  test('two encodings of one password differ (fresh salt each time)', async () => {
    for (const name of writable.filter((n) => !['SHA', 'SHA256', 'SHA384', 'SHA512', 'MD5', 'CLEAR'].includes(n))) {
      const a = await registry.encode(name, PASSWORDS.ascii!);
      const b = await registry.encode(name, PASSWORDS.ascii!);
      assert.notEqual(a, b, name);
    }
  });
});

describe('written layouts match OpenLDAP and OpenDJ', () => {
  test('{PBKDF2-SHA256} is iterations$ab64(16-byte salt)$ab64(32-byte hash)', async () => {
    const stored = await registry.encode('PBKDF2-SHA256', PASSWORDS.ascii!);
    const match = /^\{PBKDF2-SHA256\}10000\$([A-Za-z0-9./]{22})\$([A-Za-z0-9./]{43})$/.exec(stored);
    assert.ok(match, stored);
  });

  test('{PBKDF2-HMAC-SHA512} is iterations:base64(64-byte hash + 16-byte salt)', async () => {
    const stored = await registry.encode('PBKDF2-HMAC-SHA512', PASSWORDS.ascii!, { iterations: 2000 });
    const match = /^\{PBKDF2-HMAC-SHA512\}2000:([A-Za-z0-9+/=]+)$/.exec(stored);
    assert.ok(match, stored);
    assert.equal(Buffer.from(match[1]!, 'base64').byteLength, 80);
  });

  test('{SSHA512} carries the 8-byte default salt, or the one asked for', async () => {
    const decoded = (stored: string) => Buffer.from(stored.replace(/^\{SSHA512\}/, ''), 'base64').byteLength;
    assert.equal(decoded(await registry.encode('SSHA512', PASSWORDS.ascii!)), 64 + 8);
    assert.equal(decoded(await registry.encode('ssha512', PASSWORDS.ascii!, { saltLength: 16 })), 64 + 16);
  });
});

describe('verification never throws on garbage', () => {
  const GARBAGE = [
    '', '{', '{}', '{SSHA}', '{SSHA}!!!!', '{SSHA}mBYP', '{SSHA}a', '{SHA}====', '{SHA512}' + 'A'.repeat(10),
    '{PBKDF2}', '{PBKDF2}abc$def$ghi', '{PBKDF2}10000$$', '{PBKDF2}10000$salt', '{PBKDF2}-5$YWJj$YWJj',
    '{PBKDF2}0$YWJjZA$' + 'A'.repeat(27), '{PBKDF2-SHA256}10000$YWJj$short', '{PBKDF2}10000:', '{PBKDF2}10000:QUJD',
    '{PBKDF2-SHA512}1e9$YWJj$YWJj', '{PBKDF2}99999999999$YWJj$YWJj', '{PKCS5S2}QUJD', '{PBKDF2_SHA256}QUJD',
    '{PBKDF2_SHA256}' + Buffer.alloc(324).toString('base64'), '{NOSUCH}abc', '{SSHA}\u0000\u0001',
    '{PBKDF2-SHA1}10000$ZBEH6B07rgQpJSikyvMU2w$TAA03a5IYkz1QlPsbJKvUsT', '{ssha}' + '/'.repeat(100_000),
  ];

  for (const stored of GARBAGE) {
    test(`refuses ${JSON.stringify(stored.slice(0, 50))}`, async () => {
      const { registry: quiet, lines } = collectingRegistry();
      const result: VerifyResult = await quiet.verify(PASSWORDS.ascii!, stored);
      assert.notEqual(result.status, 'match');
      if (result.status === 'invalid') {
        assert.ok(result.reason.length > 0);
        assert.equal(lines.length, 1, 'one log line per refused value');
        assert.ok(!lines[0]!.includes('secret'), 'the password is never logged');
      }
    });
  }

  test('a truncated stored value is refused with a reason, not a crash', async () => {
    const stored = await registry.encode('PBKDF2-SHA512', PASSWORDS.ascii!, { iterations: 1000 });
    for (let cut = 1; cut < stored.length; cut += 7) {
      const result = await registry.verify(PASSWORDS.ascii!, stored.slice(0, cut));
      assert.notEqual(result.status, 'match', stored.slice(0, cut));
    }
  });

  test('a value without a {SCHEME} prefix is read as cleartext, as OpenLDAP does', async () => {
    assert.deepEqual(parseStoredValue('plain'), { name: 'CLEARTEXT', value: 'plain' });
    assert.equal((await registry.verify(Buffer.from('plain'), 'plain')).status, 'match');
    assert.equal((await registry.verify(Buffer.from('plai'), 'plain')).status, 'mismatch');
  });
});

describe('iteration cap', () => {
  test('a stored value above --max-iterations is refused unverified, with a log line', async () => {
    const { registry: capped, lines } = collectingRegistry(5000);
    const result = await capped.verify(Buffer.from('secret'), '{PBKDF2}60000$Y6ZHtTTbeUgpIbIW0QDmDA$j/aU7jFKUSbH4UobNQDm9OEIwuw');
    assert.equal(result.status, 'invalid');
    assert.match(lines.join('\n'), /60000 iterations is above the limit of 5000/);
  });

  test('the cap covers the 389 legacy blob and PKCS5S2 too', async () => {
    const { registry: capped } = collectingRegistry(2000);
    const pkcs = '{PKCS5S2}DQIXJU038u4P7FdsuFTY/+35bm41kfjZa57UrdxHp2Mu3qF2uy+ooD+jF5t1tb8J';
    assert.equal((await capped.verify(Buffer.from('password'), pkcs)).status, 'invalid');
  });

  test('encoding above the cap is refused: what cannot be verified is not written', async () => {
    const { registry: capped } = collectingRegistry(5000);
    await assert.rejects(capped.encode('PBKDF2-SHA256', Buffer.from('x'), { iterations: 6000 }), SchemeError);
    assert.match(await capped.encode('PBKDF2-SHA256', Buffer.from('x'), { iterations: 5000 }), /^\{PBKDF2-SHA256\}5000\$/);
  });
});

describe('encode parameters and the default scheme', () => {
  test('unknown scheme, unknown parameter and out-of-range values are clear errors', async () => {
    await assert.rejects(registry.encode('NOPE', Buffer.from('x')), /unknown password scheme "NOPE"/);
    await assert.rejects(registry.encode('SSHA', Buffer.from('x'), { iterations: 5 }), /takes no parameter "iterations"/);
    await assert.rejects(registry.encode('PBKDF2', Buffer.from('x'), { iterations: 10 }), /iterations .* from 1000/);
    await assert.rejects(registry.encode('SSHA', Buffer.from('x'), { saltLength: 2.5 }), /integer/);
  });

  test('a verify-only scheme cannot encode', async () => {
    await assert.rejects(registry.encode('PBKDF2_SHA256', Buffer.from('x')), /can only verify/);
  });

  test('the default is PBKDF2-SHA256; CLEAR is refused unless explicitly allowed', () => {
    assert.equal(resolveDefaultScheme(registry).names[0], 'PBKDF2-SHA256');
    assert.throws(() => resolveDefaultScheme(registry, 'CLEAR'), /refusing CLEAR as the default scheme/);
    assert.throws(() => resolveDefaultScheme(registry, 'cleartext'), /refusing CLEAR/);
    assert.equal(resolveDefaultScheme(registry, 'CLEAR', true).names[0], 'CLEAR');
    assert.throws(() => resolveDefaultScheme(registry, 'PBKDF2_SHA256'), /cannot be the default/);
  });
});

describe('PBKDF2 runs off the event loop', () => {
  // Both go through the PBKDF2 addon when it is built (schemes/kdf.ts), else through node:crypto.
  for (const [scheme, iterations] of [['PBKDF2-SHA256', 400_000], ['PBKDF2-SHA512', 200_000]] as const) {
    test(`timers keep firing while a long ${scheme} verify is running`, async () => {
      const stored = await registry.encode(scheme, Buffer.from('x'), { iterations });
      let ticks = 0;
      const timer = setInterval(() => { ticks += 1; }, 1);
      const result = await registry.verify(Buffer.from('x'), stored);
      clearInterval(timer);
      assert.equal(result.status, 'match');
      assert.ok(ticks >= 3, `the event loop ran ${ticks} timer callbacks during the verify`);
    });
  }
});

describe('a scheme that cannot hash here (its addon did not build)', () => {
  const broken = {
    names: ['NATIVE-ONLY'], description: 'needs an addon', unavailable: 'the addon (native/x) did not load: not built',
    encode: async () => '{NATIVE-ONLY}x', verify: async () => true,
  };

  test('a stored value in it fails to verify with the reason logged, and nothing throws', async () => {
    const { registry: mine, lines } = collectingRegistry();
    mine.register(broken, 'test');
    const result = await mine.verify(Buffer.from('secret'), '{NATIVE-ONLY}x');
    assert.equal(result.status, 'invalid');
    assert.match(result.status === 'invalid' ? result.reason : '', /unavailable here: the addon \(native\/x\) did not load/);
    assert.equal(lines.length, 1);
  });

  test('it writes nothing, saying why', async () => {
    const { registry: mine } = collectingRegistry();
    mine.register(broken, 'test');
    await assert.rejects(mine.encode('NATIVE-ONLY', Buffer.from('secret')), /unavailable here/);
  });
});
