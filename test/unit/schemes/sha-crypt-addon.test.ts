/**
 * The SHA-crypt addon (native/sha-crypt: `$5$` and `$6$` over the OpenSSL inside Node) against
 * Ulrich Drepper's published vectors and against libxcrypt (native/xcrypt) on random passwords,
 * salts and rounds; the settings it leaves to libxcrypt; its argument checks; and schemes/crypt.ts
 * choosing it. Skipped without the addons built, unless LEVELDAP_REQUIRE_NATIVE=1 (.ci/run).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { loadSchemeAddon } from '../../../schemes/addon.js';
import { cryptAsync, shaCryptAddonError, shaCryptBackend } from '../../../schemes/crypt.js';
import { createRegistry } from '../../../src/password/index.js';

type Callback = (error: Error | null, hash: string) => void;
interface CryptAddon {
  crypt(phrase: Uint8Array, setting: string, callback: Callback): void;
}

const fast = loadSchemeAddon<CryptAddon>('sha-crypt', 'sha_crypt');
const libxcrypt = loadSchemeAddon<CryptAddon>('xcrypt', 'xcrypt');
const skip = fast.addon && libxcrypt.addon ? false : `the SHA-crypt or crypt(3) addon did not load (${fast.error ?? libxcrypt.error}); npm run build:native builds them`;

/** The addon's answer, or 'refused' when it throws or calls back an error. */
function hashWith(addon: CryptAddon, phrase: Uint8Array, setting: string): Promise<string> {
  return new Promise((resolve) => {
    try {
      addon.crypt(phrase, setting, (error, hash) => resolve(error ? 'refused' : hash));
    } catch {
      resolve('refused');
    }
  });
}

/** Drepper's "Unix crypt using SHA-256 and SHA-512", its test vectors (all but the one below 1,000 rounds, which libxcrypt refuses). */
const DREPPER: readonly [string, string, string][] = [
  ['Hello world!', '$5$saltstring', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'],
  ['Hello world!', '$5$rounds=10000$saltstringsaltstring', '$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA'],
  ['This is just a test', '$5$rounds=5000$toolongsaltstring', '$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5'],
  ['a very much longer text to encrypt.  This one even stretches over morethan one line.', '$5$rounds=1400$anotherlongsaltstring',
    '$5$rounds=1400$anotherlongsalts$Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1'],
  ['we have a short salt string but not a short password', '$5$rounds=77777$short', '$5$rounds=77777$short$JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/'],
  ['a short string', '$5$rounds=123456$asaltof16chars..', '$5$rounds=123456$asaltof16chars..$gP3VQ/6X7UUEW3HkBn2w1/Ptq2jxPyzV/cZKmF/wJvD'],
  ['Hello world!', '$6$saltstring', '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'],
  ['Hello world!', '$6$rounds=10000$saltstringsaltstring',
    '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.'],
  ['This is just a test', '$6$rounds=5000$toolongsaltstring',
    '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0'],
  ['a very much longer text to encrypt.  This one even stretches over morethan one line.', '$6$rounds=1400$anotherlongsaltstring',
    '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1'],
  ['we have a short salt string but not a short password', '$6$rounds=77777$short',
    '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0'],
  ['a short string', '$6$rounds=123456$asaltof16chars..',
    '$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1'],
];

const SALT_CHARACTERS = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomSalt = (length: number): string => Array.from({ length }, () => SALT_CHARACTERS[randomInt(64)]).join('');
/** Random bytes without NUL (crypt(3) reads a C string). */
const randomPhrase = (length: number): Buffer => Buffer.from(randomBytes(length).map((byte) => byte || 1));

test('the SHA-crypt addon loaded and schemes/crypt.ts uses it (LEVELDAP_REQUIRE_NATIVE=1)', (t) => {
  if (process.env.LEVELDAP_REQUIRE_NATIVE !== '1') {
    t.skip('LEVELDAP_REQUIRE_NATIVE is not 1: the native fast path is not required here (.ci/run requires it)');
    return;
  }
  assert.equal(shaCryptAddonError, undefined, 'the addon must load');
  assert.equal(shaCryptBackend(), 'sha-crypt addon');
});

describe("Drepper's published vectors", { skip }, () => {
  for (const [password, setting, expected] of DREPPER) {
    test(`${setting}`, async () => {
      assert.equal(await hashWith(fast.addon!, Buffer.from(password), setting), expected);
      assert.equal(await hashWith(libxcrypt.addon!, Buffer.from(password), setting), expected, 'libxcrypt agrees');
    });
  }
});

describe('the addon against libxcrypt', { skip }, () => {
  test('1,200 random cases: both methods, passwords of 0-511 bytes, salts of 0-20 characters, with and without rounds= and the closing $', async () => {
    const lengths = [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300, 511];
    const rounds = [undefined, 1000, 1001, 4999, 5000, 5001, 2345];
    const cases = Array.from({ length: 1200 }, (_, n) => {
      const round = rounds[n % rounds.length];
      const setting = `$${n % 2 ? '5' : '6'}$${round === undefined ? '' : `rounds=${round}$`}${randomSalt(n % 21)}${n % 3 ? '$' : ''}`;
      return { phrase: randomPhrase(lengths[n % lengths.length]!), setting };
    });
    for (const { phrase, setting } of cases) {
      const expected = await hashWith(libxcrypt.addon!, phrase, setting);
      assert.notEqual(expected, 'refused', setting);
      assert.equal(await hashWith(fast.addon!, phrase, setting), expected, `${setting} phrase=${phrase.toString('hex')}`);
    }
  });

  test('a stored value verifies through its whole string: what follows the salt is ignored, as crypt(3) does', async () => {
    const stored = DREPPER[7]![2];
    assert.equal(await hashWith(fast.addon!, Buffer.from('Hello world!'), stored), stored);
  });
});

describe('settings it leaves to libxcrypt (a RangeError at once)', { skip }, () => {
  /** SHA-crypt settings libxcrypt refuses: rounds out of range or with a leading zero, salt characters outside ./0-9A-Za-z. */
  const REFUSED: readonly string[] = [
    '$6$rounds=999$salt$', '$6$rounds=0$salt$', '$6$rounds=01000$salt$', '$6$rounds=1000000000$salt$', '$6$rounds=$salt$',
    '$5$rounds=10000000000000000000000$salt$', '$6$sa*lt$', '$5$sa:lt$', '$6$sa lt$', '$6$s\u00e9$', '$6$sa\nlt$',
  ];
  /** Other methods, and strings that are no setting at all: libxcrypt's to judge. */
  const OTHERS: readonly string[] = ['$7$salt$', '$y$j9T$salt$', '$1$salt$', '$2b$10$abcdefghijklmnopqrstuu', 'ab', '', '$6', '$6salt$'];
  for (const setting of [...REFUSED, ...OTHERS]) {
    test(JSON.stringify(setting), () => {
      assert.throws(() => fast.addon!.crypt(Buffer.from('pw'), setting, () => {}), RangeError);
    });
  }

  test('libxcrypt refuses every such SHA-crypt setting too, so the answer does not depend on the addon', async () => {
    for (const setting of REFUSED) assert.equal(await hashWith(libxcrypt.addon!, Buffer.from('pw'), setting), 'refused', JSON.stringify(setting));
  });

  test('through cryptAsync such a setting is libxcrypt\'s refusal, not a throw', async () => {
    await assert.rejects(cryptAsync(Buffer.from('pw'), '$6$rounds=999$salt$'), /libxcrypt refused the setting/);
  });
});

describe('arguments', { skip }, () => {
  const BAD: readonly [string, unknown[], ErrorConstructor][] = [
    ['a phrase of 512 bytes', [Buffer.alloc(512, 0x61), '$6$salt$', () => {}], RangeError],
    ['a phrase with a NUL byte', [Buffer.from('a\0b'), '$6$salt$', () => {}], RangeError],
    ['a phrase that is a string', ['pw', '$6$salt$', () => {}], TypeError],
    ['a setting that is not a string', [Buffer.from('pw'), 6, () => {}], TypeError],
    ['a setting of 384 bytes', [Buffer.from('pw'), `$6$${'a'.repeat(381)}`, () => {}], RangeError],
    ['no callback', [Buffer.from('pw'), '$6$salt$'], TypeError],
    ['nothing at all', [], TypeError],
  ];
  for (const [name, args, type] of BAD) {
    test(name, () => {
      assert.throws(() => (fast.addon!.crypt as (...values: unknown[]) => void)(...args), type);
    });
  }

  test('a phrase of exactly 511 bytes is taken', async () => {
    const phrase = randomPhrase(511);
    assert.equal(await hashWith(fast.addon!, phrase, '$6$salt$'), await hashWith(libxcrypt.addon!, phrase, '$6$salt$'));
  });
});

describe('{CRYPT} through the registry', { skip }, () => {
  const registry = createRegistry();

  test('SHA-512-crypt and SHA-256-crypt values written and verified (libxcrypt writes the setting, the addon hashes)', async () => {
    for (const scheme of ['CRYPT-SHA512', 'CRYPT-SHA256']) {
      const stored = await registry.encode(scheme, Buffer.from('secret'), { rounds: 1234 });
      assert.match(stored, new RegExp(`^\\{${scheme}\\}\\$[56]\\$rounds=1234\\$[./0-9A-Za-z]{16}\\$`));
      assert.equal((await registry.verify(Buffer.from('secret'), stored)).status, 'match');
      assert.equal((await registry.verify(Buffer.from('Secret'), stored)).status, 'mismatch');
      const hash = stored.slice(stored.indexOf('}') + 1);
      assert.equal(await hashWith(libxcrypt.addon!, Buffer.from('secret'), hash), hash, 'libxcrypt makes the same string');
    }
  });
});
