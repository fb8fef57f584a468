/** BindNames (src/server/bind-names.ts) parses a bind DN as parseDn, normalizeDn, dnKey and formatDn do, its parents kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BindNames } from '../../../src/server/bind-names.js';
import { dnKey, formatDn, normalizeDn, parseDn } from '../../../src/store/index.js';
import { DN_FORMS, MALFORMED_DNS } from '../../helpers/dn-forms.js';

const whole = (name: string) => {
  const dn = parseDn(name);
  return { dn, normalized: normalizeDn(dn), key: dnKey(dn), pretty: formatDn(dn) };
};

test('a bind DN is parsed as a whole parse gives it, the first time and once its parent is kept', () => {
  const names = new BindNames();
  for (let round = 0; round < 2; round += 1) {
    for (const name of DN_FORMS) assert.deepEqual(names.parse(name), whole(name), name);
  }
});

test('a malformed bind DN is refused as parseDn refuses it, its parent kept or not', () => {
  const names = new BindNames();
  names.parse('uid=ok,ou=People,dc=example,dc=com');
  for (const name of MALFORMED_DNS) {
    assert.throws(() => whole(name), /invalid DN/, name);
    assert.throws(() => names.parse(name), /invalid DN/, name);
  }
});

test('a name that bound is answered from the cache, key included', () => {
  const names = new BindNames();
  const name = 'uid=user.9,ou=People,dc=example,dc=com';
  const parsed = names.parse(name);
  names.bound(name, parsed);
  assert.equal(names.parse(name), parsed);
  assert.equal(parsed.key, dnKey(parseDn(name)));
});
