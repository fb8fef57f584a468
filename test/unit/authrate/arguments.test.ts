import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GeneratorError, parseGenerator } from '../../../src/authrate/generators.js';
import { TemplateError, argumentsUsed, compileTemplate } from '../../../src/authrate/template.js';

function sample(spec: string, count: number): string[] {
  const next = parseGenerator(spec)();
  return Array.from({ length: count }, () => next());
}

describe('authrate generators (-g)', () => {
  test('rand(min,max) stays in [min, max): rand(0,10000) covers user.0 .. user.9999', () => {
    const values = sample('rand(0,3)', 3000).map(Number);
    assert.deepEqual([...new Set(values)].sort(), [0, 1, 2]);
  });

  test('inc(min,max) counts up to max inclusive, wraps, and restarts per worker', () => {
    assert.deepEqual(sample('inc(5,7)', 7), ['5', '6', '7', '5', '6', '7', '5']);
    const factory = parseGenerator('inc(1,9)');
    const first = factory();
    first();
    assert.equal(factory()(), '1', 'a second worker starts at min');
  });

  test('rand(file) and inc(file) take lines of a file; randstr and static values', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authrate-'));
    const file = join(dir, 'names');
    await writeFile(file, 'alice\nbob\n\ncarol\n');
    assert.deepEqual(sample(`inc(${file})`, 4), ['alice', 'bob', 'carol', 'alice']);
    assert.ok(sample(`rand(${file})`, 50).every((value) => ['alice', 'bob', 'carol'].includes(value)));
    await rm(dir, { recursive: true });
    assert.ok(sample('randstr(8)', 20).every((value) => /^[A-Za-z0-9]{8}$/.test(value)));
    assert.ok(sample('randstr(5,ab)', 20).every((value) => /^[ab]{5}$/.test(value)));
    // A character beyond the BMP is one choice (its UTF-16 halves went out alone: review 2026-12-08).
    assert.ok(sample('randstr(4,😀x)', 50).every((value) => /^(?:😀|x){4}$/u.test(value)), sample('randstr(4,😀x)', 3).join(' '));
    assert.deepEqual(sample('static-value', 2), ['static-value', 'static-value']);
  });

  test('bad generators are clear errors', () => {
    // Past 2^53 (rand gave 4.04e+22, inc stuck) and a randstr too long to send (it blocked the tool): review 2026-12-08.
    for (const bad of ['rand(5,5)', 'rand(9,1)', 'inc(a,b)', 'randstr(0)', 'rand(/no/such/file)', 'inc(1,2,3)', 'rand(-5,99999999999999999999999)', 'inc(9007199254740990,9007199254740999)', 'randstr(200000000)']) {
      assert.throws(() => parseGenerator(bad), GeneratorError, bad);
    }
  });
});

describe('authrate templates (-D, -b, filter)', () => {
  test('Java style: %s, %d, positional %2$s, %%', () => {
    assert.equal(compileTemplate('uid=user.%d,ou=People')(['7']), 'uid=user.7,ou=People');
    assert.equal(compileTemplate('%2$s-%1$s-%s %%')(['a', 'b']), 'b-a-a %');
  });

  test('PingDS style: {} the next argument, {N} 1-based', () => {
    assert.equal(compileTemplate('uid=user.{},ou=People')(['3']), 'uid=user.3,ou=People');
    assert.equal(compileTemplate('{2} then {1}')(['x', 'y']), 'y then x');
  });

  test('argumentsUsed counts what the template needs; a missing argument is a clear error', () => {
    assert.equal(argumentsUsed('(uid=user.{1})'), 1);
    assert.equal(argumentsUsed('%s %3$s'), 3);
    assert.throws(() => compileTemplate('%s %s')(['only one']), TemplateError);
    assert.throws(() => compileTemplate('{0}'), TemplateError);
  });
});
