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

/** Binds every name drawn, count times, as the bind handler does: parse, then bound on success. */
function bindMany(names: BindNames, draw: () => string, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const name = draw();
    names.bound(name, names.parse(name));
  }
}

const userName = (n: number) => `uid=user.${n},ou=People,dc=example,dc=com`;

test('the names of a few accounts that bind again and again are answered from the cache', () => {
  const names = new BindNames();
  bindMany(names, () => userName(Math.floor(Math.random() * 100)), 40_000);
  assert.equal(names.size, 100);
  const parsed = names.parse(userName(7));
  assert.equal(names.parse(userName(7)), parsed);
  assert.equal(parsed.key, dnKey(parseDn(userName(7))));
});

test('names of a directory too large for the cache to answer one bind in four are not kept', () => {
  const names = new BindNames();
  bindMany(names, () => userName(Math.floor(Math.random() * 100_000)), 60_000);
  assert.ok(names.size < 1000, `${names.size} names kept`);
  assert.deepEqual(names.parse(userName(99_999)), whole(userName(99_999)));
});

test('a few service accounts binding again and again are answered from the cache, whatever their names hash to', () => {
  const names = new BindNames();
  const accounts = ['cn=sssd,ou=Services,dc=example,dc=com', 'cn=nslcd,ou=Services,dc=example,dc=com', 'uid=postfix,ou=Services,dc=example,dc=com'];
  bindMany(names, () => accounts[Math.floor(Math.random() * accounts.length)]!, 40_000);
  assert.equal(names.size, accounts.length);
  const parsed = names.parse(accounts[1]!);
  assert.equal(names.parse(accounts[1]!), parsed);
});
