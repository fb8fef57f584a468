/**
 * {ARGON2} through libargon2: the reference implementation's published vectors, OpenLDAP's
 * PHC layout (parameters in the order m, t, p), costs refused above the limits before hashing.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry } from '../../../src/password/index.js';
import { argon2Backend, argon2LoadErrors, libargon2Hash, nodeRsArgon2Hash, parseArgon2 } from '../../../schemes/argon2.js';
import { skipUnavailable } from '../../helpers/native-schemes.js';

const registry = createRegistry();
const skip = skipUnavailable('ARGON2');

test('the Argon2 addon loaded (LEVELDAP_REQUIRE_NATIVE=1 fails without it)', { skip }, () => {
  assert.equal(registry.require('ARGON2').unavailable, undefined);
});

/** From the Argon2 reference implementation's test suite (src/test.c): "password", salt "somesalt". */
const VECTORS: readonly string[] = [
  '$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ',
  '$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA',
  '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
];

describe('{ARGON2}: published vectors', { skip }, () => {
  for (const hash of VECTORS) {
    test(`${hash.slice(0, 30)}... verifies, a wrong password does not`, async () => {
      assert.equal((await registry.verify(Buffer.from('password'), `{ARGON2}${hash}`)).status, 'match');
      assert.equal((await registry.verify(Buffer.from('passwore'), `{ARGON2}${hash}`)).status, 'mismatch');
    });
  }
});

describe('{ARGON2}: the PHC string', { skip }, () => {
  test('written as argon2id, v=19, OWASP settings by default, 16-byte salt and 32-byte hash', async () => {
    const stored = await registry.encode('ARGON2', Buffer.from('secret'));
    assert.match(stored, /^\{ARGON2\}\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.equal((await registry.verify(Buffer.from('secret'), stored)).status, 'match');
  });

  test('parameters in the order m, t, p only; v= may be absent (version 16)', async () => {
    const misordered = '{ARGON2}$argon2id$v=19$m=65536,p=1,t=2$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
    const result = await registry.verify(Buffer.from('password'), misordered);
    assert.equal(result.status, 'invalid');
    assert.match(result.status === 'invalid' ? result.reason : '', /order m, t, p/);
    assert.equal(parseArgon2('$argon2i$m=4096,t=3,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA').version, 16);
  });

  test('malformed strings are refused with a reason, never thrown', async () => {
    for (const value of ['$argon2x$v=19$m=8,t=1,p=1$c29tZXNhbHQ$aGFzaGhhc2g', '$argon2id$v=20$m=8,t=1,p=1$c29tZXNhbHQ$aGFzaGhhc2g',
      '$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaGhhc2g', '$argon2id$v=19$m=8,t=0,p=1$c29tZXNhbHQ$aGFzaGhhc2g', '$argon2id$v=19$m=8,t=1,p=2$c29tZXNhbHQ$aGFzaGhhc2g', '']) {
      assert.equal((await registry.verify(Buffer.from('password'), `{ARGON2}${value}`)).status, 'invalid', value);
    }
  });

  test('a planted m=4194304 (4 GiB), t=1000 or p=64 is refused before any hashing, naming the limit', async () => {
    const started = performance.now();
    for (const [params, limit] of [['m=4194304,t=1,p=1', /--max-hash-memory/], ['m=8192,t=1000,p=1', /--max-hash-passes/], ['m=8192,t=1,p=64', /lanes/]] as const) {
      const result = await registry.verify(Buffer.from('password'), `{ARGON2}$argon2id$v=19$${params}$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc`);
      assert.equal(result.status, 'invalid', params);
      assert.match(result.status === 'invalid' ? result.reason : '', limit);
    }
    assert.ok(performance.now() - started < 500, 'nothing was hashed');
  });

  test('the limits are flags: a registry with --max-hash-memory 512 verifies a 300 MiB value', async () => {
    const wide = createRegistry({ maxHashMemoryMiB: 512 });
    assert.equal(wide.inspect('{ARGON2}$argon2id$v=19$m=307200,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc').problem, undefined);
    assert.match(createRegistry().inspect('{ARGON2}$argon2id$v=19$m=307200,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc').problem ?? '', /300 MiB/);
  });
});

describe('{ARGON2}: the two backends', () => {
  const both = argon2LoadErrors['@node-rs/argon2'] === undefined && argon2LoadErrors.libargon2 === undefined;
  const skipBoth = !both && process.env.LEVELDAP_REQUIRE_NATIVE !== '1' ? `a backend did not load: ${JSON.stringify(argon2LoadErrors)}` : false;

  test('@node-rs/argon2 is used when it loads (LEVELDAP_ARGON2=libargon2 forces the addon)', { skip }, () => {
    const expected = process.env.LEVELDAP_ARGON2 === 'libargon2' || argon2LoadErrors['@node-rs/argon2'] !== undefined ? 'libargon2' : '@node-rs/argon2';
    assert.equal(argon2Backend(), expected);
  });

  test('both load (LEVELDAP_REQUIRE_NATIVE=1 fails without either) and give the same raw hash: every type, both versions, lanes, odd lengths', { skip: skipBoth }, async () => {
    assert.deepEqual(argon2LoadErrors, { '@node-rs/argon2': undefined, libargon2: undefined });
    const salt = Buffer.from('a salt of 21 bytes...');
    for (const type of ['argon2id', 'argon2i', 'argon2d'] as const) {
      for (const [version, memoryKiB, passes, lanes, length] of [[19, 1024, 2, 1, 32], [16, 2048, 1, 4, 17], [19, 64, 3, 8, 64]] as const) {
        const settings = { type, version, memoryKiB, passes, lanes, salt };
        const password = Buffer.from(`pässwörd ${type} ${version}`);
        const [rust, reference] = await Promise.all([nodeRsArgon2Hash(password, settings, length), libargon2Hash(password, settings, length)]);
        assert.equal(rust.toString('hex'), reference.toString('hex'), `${type} v=${version} m=${memoryKiB},t=${passes},p=${lanes} length ${length}`);
      }
    }
  });
});
