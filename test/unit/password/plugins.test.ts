import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry, loadSchemePlugin, SchemeError } from '../../../src/password/index.js';
import { fixturePath } from '../../helpers/paths.js';

describe('scheme plugins', () => {
  test('the example plugin registers {SSHA3-512}, which encodes and verifies', async () => {
    const registry = createRegistry();
    await loadSchemePlugin(registry, fixturePath('plugins', 'ssha3.mjs'));
    const stored = await registry.encode('ssha3-512', Buffer.from('secret'));
    assert.match(stored, /^\{SSHA3-512\}/);
    assert.equal(Buffer.from(stored.slice('{SSHA3-512}'.length), 'base64').byteLength, 64 + 16);
    assert.equal((await registry.verify(Buffer.from('secret'), stored)).status, 'match');
    assert.equal((await registry.verify(Buffer.from('secreT'), stored)).status, 'mismatch');
    assert.equal((await registry.verify(Buffer.from('secret'), '{SSHA3-512}@@@')).status, 'invalid');
    const entry = registry.list().find((e) => e.scheme.names.includes('SSHA3-512'));
    assert.match(entry?.origin ?? '', /ssha3\.mjs/);
  });

  const REFUSED: Record<string, RegExp> = {
    'not-a-scheme.mjs': /needs a verify\(password, value\) function/,
    'duplicate-name.mjs': /scheme \{SSHA\} is already registered \(built-in\)/,
    'no-export.mjs': /exports no scheme/,
    'missing.mjs': /cannot load scheme plugin/,
  };

  for (const [file, message] of Object.entries(REFUSED)) {
    test(`${file} is refused with a clear message`, async () => {
      const registry = createRegistry();
      await assert.rejects(loadSchemePlugin(registry, fixturePath('plugins', file)), (error: unknown) => {
        assert.ok(error instanceof SchemeError);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  test('loading the same plugin twice is refused as a duplicate', async () => {
    const registry = createRegistry();
    await loadSchemePlugin(registry, fixturePath('plugins', 'ssha3.mjs'));
    await assert.rejects(loadSchemePlugin(registry, fixturePath('plugins', 'ssha3.mjs')), /already registered/);
  });

  test('a scheme that is a class instance keeps its methods', async () => {
    class Reversed {
      readonly names = ['REVERSED'];
      readonly description = 'test only';
      async encode(password: Uint8Array) { return `{REVERSED}${Buffer.from(password).reverse().toString()}`; }
      async verify(password: Uint8Array, value: string) { return Buffer.from(password).reverse().toString() === value; }
    }
    const registry = createRegistry();
    registry.register(new Reversed(), 'test');
    const stored = await registry.encode('REVERSED', Buffer.from('abc'));
    assert.equal(stored, '{REVERSED}cba');
    assert.equal((await registry.verify(Buffer.from('abc'), stored)).status, 'match');
  });

  test('an iteration limit that is not a positive whole number is refused', () => {
    assert.throws(() => createRegistry({ maxIterations: Number.NaN }), SchemeError);
    assert.throws(() => createRegistry({ maxIterations: 0 }), SchemeError);
  });

  test('a scheme whose fixed cost is above the limit cannot write', async () => {
    await assert.rejects(createRegistry({ maxIterations: 5000 }).encode('PKCS5S2', Buffer.from('x')), /refuses to verify/);
  });

  test('register() validates names and params of a scheme object', () => {
    const registry = createRegistry();
    const verify = async () => false;
    assert.throws(() => registry.register({ names: [], verify }, 'x'), /non-empty array/);
    assert.throws(() => registry.register({ names: ['bad name'], verify }, 'x'), /not a valid scheme name/);
    assert.throws(() => registry.register({ names: ['A', 'a'], verify }, 'x'), /same name twice/);
    assert.throws(() => registry.register({ names: ['P'], verify, params: [{ name: 'n', default: 9, min: 1, max: 5 }] }, 'x'), /outside/);
    assert.throws(() => registry.register(null, 'x'), /not a scheme object/);
  });
});
