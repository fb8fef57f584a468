/**
 * searchrate's and modrate's command lines (src/authrate/searchrate.ts, modrate.ts): what they
 * take beside authrate's shared options, and their mistakes (UsageError, exit 89).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/authrate/options.js';
import { parseSearchrateOptions } from '../../../src/authrate/searchrate.js';
import { parseModrateOptions } from '../../../src/authrate/modrate.js';

const PEOPLE = 'ou=People,dc=example,dc=com';

describe('searchrate options', () => {
  test('-b, -s, the filter and attributes as templates; -D binds, else anonymous; -F keeps connections open', () => {
    const config = parseSearchrateOptions(['-D', 'cn=admin', '-w', 'secret', '-F', '-c', '32', '-b', PEOPLE, '-s', 'one', '-g', 'rand(0,9999)', '(uid=user.%d)', 'cn', 'mail']);
    assert.equal(config.search.filter(['7']), '(uid=user.7)');
    assert.deepEqual([config.search.base(['7']), config.search.scope, config.search.attributes], [PEOPLE, 1, ['cn', 'mail']]);
    assert.deepEqual([config.credentials?.dn, config.credentials?.password.toString()], ['cn=admin', 'secret']);
    assert.equal(config.keepConnectionsOpen, true);
    assert.equal(config.connections, 32);
    assert.equal(parseSearchrateOptions(['-b', PEOPLE, '(uid=x)']).credentials, undefined, 'anonymous');
  });

  test('mistakes', () => {
    assert.throws(() => parseSearchrateOptions(['(uid=x)']), /-b BASE/);
    assert.throws(() => parseSearchrateOptions(['-b', PEOPLE]), /no filter/);
    assert.throws(() => parseSearchrateOptions(['-b', PEOPLE, '(uid=%s)']), /uses 1 argument/);
    assert.throws(() => parseSearchrateOptions(['-b', PEOPLE, '-D', 'cn=admin', '(uid=x)']), /bind password is needed/);
    assert.throws(() => parseSearchrateOptions(['-b', PEOPLE, '-j', '/nonexistent', '(uid=x)']), UsageError);
  });
});

describe('modrate options', () => {
  test('-M repeats, with OpenDJ\'s positional form after them; a value is a template or a generator of its own', () => {
    const config = parseModrateOptions(['-b', `uid=user.{},${PEOPLE}`, '-g', 'rand(0,10)', '-M', 'description:d-%s', '-M', 'title:rand(5,6)', 'l:{1}', '--targetThroughput', '50']);
    assert.equal(config.dn(['3']), `uid=user.3,${PEOPLE}`);
    assert.deepEqual(config.modifications.map((change) => change.attribute), ['description', 'title', 'l']);
    const [description, title, locality] = config.modifications.map((change) => change.value);
    assert.ok(description && 'template' in description && description.template(['3']) === 'd-3');
    assert.ok(title && 'generator' in title && title.generator()() === '5');
    assert.ok(locality && 'template' in locality && locality.template(['4']) === '4');
    assert.equal(config.targetThroughput, 50);
    assert.equal(config.credentials, undefined);
  });

  test('mistakes: -M is a modification, not OpenDJ\'s target throughput', () => {
    const base = ['-b', `uid=user.0,${PEOPLE}`];
    assert.throws(() => parseModrateOptions(['-M', 'description:x']), /-b DN/);
    assert.throws(() => parseModrateOptions(base), /no modification/);
    assert.throws(() => parseModrateOptions([...base, '-M', '1000']), /--targetThroughput/);
    assert.throws(() => parseModrateOptions([...base, '-M', ':x']), /ATTRIBUTE:VALUE/);
    assert.throws(() => parseModrateOptions([...base, '-M', 'bad name:x']), /ATTRIBUTE:VALUE/);
    assert.throws(() => parseModrateOptions([...base, '-M', 'description:inc(3,1)']), /-M description: inc\(3,1\)/);
  });
});
