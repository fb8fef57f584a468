/**
 * The password policy's parts, without a server: the settings and their config file and flags
 * (src/cli/options/policy.ts), the re-encoding rule, the verified-bind cache, lockout against a
 * real store (one lock write under concurrent failures, expiry, the admin's permanent lock,
 * attempts reserved before verifying: never more than the limit at once, waiting binds served
 * in order or refused once locked, nothing left behind; with the map of accounts full, failures
 * stored in the entry and counted again, never forgotten), and re-encoding that never overwrites
 * a password changed meanwhile.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createRegistry, SchemeError } from '../../../src/password/index.js';
import { checkPolicy, policyParams, rehashReason, rehashRule, DEFAULT_POLICY, VerifiedBindCache, type PasswordPolicy } from '../../../src/policy/index.js';
import { policyFromOptions, readPolicyFile } from '../../../src/cli/options/policy.js';
import { CliError } from '../../../src/cli/support/errors.js';
import { addEntry, generalizedTime, modifyEntry, parseDn, updateEntry, values, DirectoryError, DirectoryStore, type Entry, type SharedFailures } from '../../../src/store/index.js';
import { BackgroundTasks } from '../../../src/policy/background.js';
import { Lockout } from '../../../src/policy/lockout.js';
import { PasswordUpgrades } from '../../../src/policy/upgrade.js';
import { newCounters } from '../../../src/server/threads/counters.js';
import { BASE, PEOPLE, person, tempDir } from '../../helpers/store.js';

const registry = createRegistry();
const policy = (settings: Partial<PasswordPolicy>): PasswordPolicy => ({ ...DEFAULT_POLICY, ...settings });
const text = (entry: Entry | undefined, name: string): string[] => (entry ? values(entry, name).map(String) : []);

interface Line { readonly level: string; readonly msg: string; readonly fields: Record<string, unknown> }

/** A logger that keeps what it is given. */
function recordingLogger(): { log: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => { lines.push({ level, msg, fields }); };
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
  return { log, lines };
}

describe('policy settings: --config file and flags', () => {
  let dir: { path: string; remove: () => Promise<void> };
  before(async () => { dir = await tempDir('leveldap-policy-'); });
  after(async () => { await dir.remove(); });

  async function file(name: string, content: string): Promise<string> {
    const path = join(dir.path, name);
    await writeFile(path, content);
    return path;
  }

  const usageError = (pattern: RegExp) => (error: unknown) => error instanceof CliError && pattern.test(error.message);

  test('defaults, then the file, then the flags; a flag\'s scheme list is comma-separated', async () => {
    const config = await file('ok.json', JSON.stringify({ maxFailures: 9, minPasswordLength: 12, deprecatedSchemes: ['SHA'], upgradeIterations: true }));
    const merged = await policyFromOptions({ config, 'max-failures': 3, 'deprecated-schemes': 'SSHA, SMD5' });
    assert.equal(merged.maxFailures, 3, 'the flag wins');
    assert.equal(merged.minPasswordLength, 12, 'the file fills in');
    assert.deepEqual(merged.deprecatedSchemes, ['SSHA', 'SMD5']);
    assert.equal(merged.upgradeIterations, true);
    assert.equal(merged.lockoutDuration, DEFAULT_POLICY.lockoutDuration, 'the default stays');
    assert.deepEqual(await policyFromOptions({}), DEFAULT_POLICY);
  });

  test('an unknown key, a flag name as key, a bad value, bad JSON, a missing file: usage errors naming the problem', async () => {
    await assert.rejects(readPolicyFile(await file('unknown.json', '{"maxFailure": 3}')), usageError(/unknown setting "maxFailure".*known: defaultScheme/));
    await assert.rejects(readPolicyFile(await file('kebab.json', '{"max-failures": 3}')), usageError(/did you mean "maxFailures"/));
    await assert.rejects(readPolicyFile(await file('negative.json', '{"lockoutDuration": -1}')), usageError(/"lockoutDuration" must be a whole number from 0/));
    await assert.rejects(readPolicyFile(await file('string.json', '{"maxFailures": "5"}')), usageError(/"maxFailures" must be a whole number/));
    await assert.rejects(readPolicyFile(await file('fraction.json', '{"bindCacheTtl": 1.5}')), usageError(/"bindCacheTtl" must be a whole number/));
    await assert.rejects(readPolicyFile(await file('list.json', '{"deprecatedSchemes": "SSHA"}')), usageError(/must be a list of scheme names/));
    await assert.rejects(readPolicyFile(await file('bool.json', '{"upgradeIterations": "yes"}')), usageError(/must be true or false/));
    await assert.rejects(readPolicyFile(await file('array.json', '[1, 2]')), usageError(/expected a JSON object/));
    await assert.rejects(readPolicyFile(await file('broken.json', '{"maxFailures": ')), usageError(/is not valid JSON/));
    await assert.rejects(readPolicyFile(join(dir.path, 'missing.json')), usageError(/cannot read --config file .*ENOENT/));
    await assert.rejects(policyFromOptions({ 'max-failures': Number.NaN }), usageError(/--max-failures must be a whole number/));
    await assert.rejects(policyFromOptions({ 'bind-cache-size': 0 }), usageError(/--bind-cache-size must be a whole number from 1/));
  });

  test('checkPolicy: unknown schemes, iterations the default scheme does not take or refuses, a deprecated default scheme', () => {
    const refused = (settings: Partial<PasswordPolicy>, pattern: RegExp) =>
      assert.throws(() => checkPolicy(registry, policy(settings)), (error: unknown) => error instanceof SchemeError && pattern.test(error.message));
    refused({ deprecatedSchemes: ['NOPE'] }, /deprecatedSchemes: unknown password scheme "NOPE"/);
    refused({ importScheme: 'NOPE' }, /importScheme: unknown password scheme/);
    refused({ defaultScheme: 'SSHA512', defaultIterations: 5000 }, /takes no iterations/);
    refused({ defaultIterations: 10 }, /iterations .* must be an integer from 1000/);
    refused({ deprecatedSchemes: ['pbkdf2-sha256'] }, /cannot also be deprecated/);
    assert.doesNotThrow(() => checkPolicy(registry, policy({ deprecatedSchemes: ['SSHA', 'SHA', 'PBKDF2'], defaultIterations: 20_000 })));
  });
});

describe('policy settings: the parameters the default scheme writes with (defaultParams)', () => {
  test('a flag of NAME=VALUE pairs, or an object in the file; only the parameters a scheme takes reach it', async () => {
    const merged = await policyFromOptions({ 'default-scheme': 'ARGON2', 'default-params': 'memory=65536, time=3,parallelism=4' });
    assert.deepEqual(merged.defaultParams, { memory: 65_536, time: 3, parallelism: 4 });
    assert.doesNotThrow(() => checkPolicy(registry, merged));
    assert.deepEqual(policyParams(registry, 'ARGON2', merged), { memory: 65_536, time: 3, parallelism: 4 });
    assert.deepEqual(policyParams(registry, 'SSHA512', merged), {}, 'an import scheme without those parameters');
    await assert.rejects(policyFromOptions({ 'default-params': 'memory' }), (error: unknown) => error instanceof CliError && /NAME=VALUE/.test(error.message));
  });

  test('checkPolicy refuses parameters the default scheme does not take, or beyond the limits', () => {
    const refused = (settings: Partial<PasswordPolicy>, pattern: RegExp) =>
      assert.throws(() => checkPolicy(registry, policy(settings)), (error: unknown) => error instanceof SchemeError && pattern.test(error.message));
    refused({ defaultScheme: 'ARGON2', defaultParams: { rounds: 5000 } }, /defaultParams: scheme \{ARGON2\} takes no parameter "rounds"/);
    refused({ defaultScheme: 'ARGON2', defaultParams: { memory: 1_048_576 } }, /defaultParams: memory for \{ARGON2\} must be an integer from 8 to 262144/);
  });

  test('upgradeCost: a value costing less than the default scheme writes, in a measure both record', async () => {
    const rule = rehashRule(registry, policy({ defaultScheme: 'ARGON2', defaultParams: { memory: 19_456, time: 2 }, upgradeCost: true }));
    assert.deepEqual(rule.minCost, { memoryKiB: 19_456, passes: 2, lanes: 1 });
    const reason = (stored: string) => rehashReason(registry, rule, stored);
    assert.equal(reason('{ARGON2}$argon2i$v=19$m=4096,t=3,p=1$YwdxQEzdUoz8qkzYNLduUg$yGVsgfd7chScs6zeVFOlsp8MDGKUXfCX+j/p5XdwC9M'), '4096 KiB of memory, less than the 19456 written now');
    assert.equal(reason('{ARGON2}$argon2id$v=19$m=65536,t=1,p=4$YwdxQEzdUoz8qkzYNLduUg$yGVsgfd7chScs6zeVFOlsp8MDGKUXfCX+j/p5XdwC9M'), '1 passes, less than the 2 written now');
    assert.equal(reason('{ARGON2}$argon2id$v=19$m=19456,t=2,p=1$YwdxQEzdUoz8qkzYNLduUg$yGVsgfd7chScs6zeVFOlsp8MDGKUXfCX+j/p5XdwC9M'), undefined);
    assert.equal(reason('{CRYPT}$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'), undefined, 'no measure in common');
    assert.equal(reason('{CRYPT}$y$j75$0xB0dLe7ShKf8ni4sBsWd.$x'), '1024 KiB of memory, less than the 19456 written now', 'yescrypt at 1 MiB');
    const crypt = rehashRule(registry, policy({ defaultScheme: 'CRYPT', defaultParams: { rounds: 656_000 }, upgradeCost: true }));
    assert.equal(rehashReason(registry, crypt, '{CRYPT}$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'), '5000 iterations, less than the 656000 written now');
  });
});

describe('re-encoding rule', () => {
  test('a deprecated scheme (any spelling) and, with upgradeIterations, fewer iterations than the default scheme writes', async () => {
    const password = Buffer.from('secret');
    const ssha = await registry.encode('SSHA', password);
    const pbkdf2At1000 = await registry.encode('PBKDF2-SHA256', password, { iterations: 1000 });
    const pbkdf2At2000 = await registry.encode('PBKDF2-SHA256', password, { iterations: 2000 });
    const sha1At1000 = await registry.encode('PBKDF2-SHA1', password, { iterations: 1000 });
    const ssha512 = await registry.encode('SSHA512', password);

    const deprecating = rehashRule(registry, policy({ deprecatedSchemes: ['ssha'] }));
    assert.equal(rehashReason(registry, deprecating, ssha), 'deprecated scheme {SSHA}');
    assert.equal(rehashReason(registry, deprecating, ssha.replace('{SSHA}', '{ssha}')), 'deprecated scheme {SSHA}');
    assert.equal(rehashReason(registry, deprecating, ssha512), undefined);
    assert.equal(rehashReason(registry, deprecating, pbkdf2At1000), undefined, 'no iteration upgrade unless asked');

    const upgrading = rehashRule(registry, policy({ upgradeIterations: true, defaultIterations: 2000 }));
    assert.equal(rehashReason(registry, upgrading, pbkdf2At1000), '1000 iterations, fewer than 2000');
    assert.equal(rehashReason(registry, upgrading, sha1At1000), '1000 iterations, fewer than 2000', 'any iterated scheme');
    assert.equal(rehashReason(registry, upgrading, pbkdf2At2000), undefined);
    assert.equal(rehashReason(registry, upgrading, ssha512), undefined, 'no iterations recorded');
    assert.equal(rehashReason(registry, upgrading, '{PBKDF2-SHA256}garbage'), undefined, 'malformed: left alone');
    const byDefault = rehashRule(registry, policy({ upgradeIterations: true }));
    assert.equal(byDefault.minIterations, 10_000, 'the default scheme\'s own default');
  });
});

describe('verified-bind cache', () => {
  const dn = 'uid=user.1,ou=people,dc=example,dc=com';
  const password = Buffer.from('secret');

  test('remembers a verified (DN, password, stored value) for the TTL, and nothing else', () => {
    let now = 1000;
    const cache = new VerifiedBindCache(60, 100, () => now);
    assert.equal(cache.has(dn, password, '{PBKDF2}one'), false);
    cache.remember(dn, password, '{PBKDF2}one');
    assert.equal(cache.has(dn, password, '{PBKDF2}one'), true);
    assert.equal(cache.has(dn, password, '{PBKDF2}two'), false, 'another stored value (a changed password)');
    assert.equal(cache.has(dn, Buffer.from('secreT'), '{PBKDF2}one'), false, 'another password');
    assert.equal(cache.has(`${dn}x`, password, '{PBKDF2}one'), false, 'another DN');
    assert.equal(cache.hits, 1);
    now += 59_999;
    assert.equal(cache.has(dn, password, '{PBKDF2}one'), true);
    now += 1;
    assert.equal(cache.has(dn, password, '{PBKDF2}one'), false, 'expired');
    assert.equal(cache.size, 0, 'an expired entry is dropped');
  });

  test('field boundaries count: moving bytes between DN, password and value gives another MAC', () => {
    const cache = new VerifiedBindCache(60, 100);
    cache.remember('ab', Buffer.from('c\0d'), 'e');
    assert.equal(cache.has('a', Buffer.from('bc\0d'), 'e'), false);
    assert.equal(cache.has('ab', Buffer.from('c'), 'd\0e'), false);
    assert.equal(cache.has('ab', Buffer.from('c\0d'), 'e'), true);
  });

  test('bounded: the oldest entry goes when full; off (TTL 0) it remembers nothing', () => {
    const cache = new VerifiedBindCache(60, 3);
    for (let i = 0; i < 5; i++) cache.remember(`uid=${i}`, password, 'v');
    assert.equal(cache.size, 3);
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => cache.has(`uid=${i}`, password, 'v')), [false, false, true, true, true]);
    const off = new VerifiedBindCache(0, 3);
    off.remember(dn, password, 'v');
    assert.equal(off.enabled, false);
    assert.equal(off.has(dn, password, 'v'), false);
  });
});

/** A new store with the base, ou=People and users 1..6 (userPassword {SSHA}old-N). */
async function storeWithUsers(prefix: string): Promise<{ dir: { path: string; remove: () => Promise<void> }; store: DirectoryStore }> {
  const dir = await tempDir(prefix);
  const store = await DirectoryStore.open(dir.path);
  for (const entry of [BASE, PEOPLE]) await store.add(entry, { allowNewSuffix: true });
  for (let n = 1; n <= 6; n++) await addEntry(store, person(n, { userPassword: `{SSHA}old-${n}` }), { actor: 'cn=admin' });
  return { dir, store };
}

/** A store with users for one describe block: opened before its tests, removed after them. */
function storeForSuite(prefix: string): { readonly store: DirectoryStore } {
  let opened: Awaited<ReturnType<typeof storeWithUsers>> | undefined;
  before(async () => { opened = await storeWithUsers(prefix); });
  after(async () => {
    await opened?.store.close();
    await opened?.dir.remove();
  });
  return {
    get store() {
      if (!opened) throw new Error('the store opens before the tests');
      return opened.store;
    },
  };
}

const dnOf = (n: number) => parseDn(`uid=user.${n},ou=People,dc=example,dc=com`);
const keyOf = (n: number) => `uid=user.${n},ou=people,dc=example,dc=com`;

describe('lockout and re-encoding against a store', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let store: DirectoryStore;
  before(async () => {
    ({ dir, store } = await storeWithUsers('leveldap-lockout-'));
  });
  after(async () => {
    await store?.close();
    await dir?.remove();
  });

  test('32 concurrent failures with a limit of 5: one lock written, failures recorded, the account locked', async () => {
    const { log, lines } = recordingLogger();
    const lockout = new Lockout(policy({ maxFailures: 5, lockoutDuration: 0 }), store, log, new BackgroundTasks(log));
    await Promise.all(Array.from({ length: 32 }, () => lockout.failed(dnOf(1), keyOf(1))));
    const stored = (await store.get(dnOf(1)))!;
    assert.equal(text(stored, 'pwdAccountLockedTime').length, 1);
    assert.match(text(stored, 'pwdAccountLockedTime')[0]!, /^\d{14}\.\d{3}Z$/);
    const failures = text(stored, 'pwdFailureTime');
    assert.ok(failures.length >= 1 && failures.length <= 5, `${failures.length} failure times`);
    assert.deepEqual(text(stored, 'modifiersName'), ['cn=admin'], 'a lock is not a client\'s modification');
    assert.equal(lines.filter((line) => line.msg === 'account locked after failed binds').length, 1, 'one lock write');
    assert.equal(lockout.isLocked(keyOf(1), stored), true);
    assert.equal(lockout.tracked, 0, 'counters are dropped once the lock is stored');
  });

  test('failures outside the window do not count; a success forgets them', async () => {
    let now = 1_000_000_000_000;
    const { log } = recordingLogger();
    const lockout = new Lockout(policy({ maxFailures: 3, failureWindow: 10 }), store, log, new BackgroundTasks(log), () => now);
    await lockout.failed(dnOf(2), keyOf(2));
    await lockout.failed(dnOf(2), keyOf(2));
    now += 10_001;
    await lockout.failed(dnOf(2), keyOf(2));
    await lockout.failed(dnOf(2), keyOf(2));
    assert.equal(text(await store.get(dnOf(2)), 'pwdAccountLockedTime').length, 0, 'two old failures fell out of the window');
    lockout.succeeded(dnOf(2), keyOf(2), (await store.get(dnOf(2)))!);
    await lockout.failed(dnOf(2), keyOf(2));
    await lockout.failed(dnOf(2), keyOf(2));
    assert.equal(text(await store.get(dnOf(2)), 'pwdAccountLockedTime').length, 0, 'the success reset the count');
    await lockout.failed(dnOf(2), keyOf(2));
    assert.equal(text(await store.get(dnOf(2)), 'pwdAccountLockedTime').length, 1);
  });

  test('a lock expires after the duration; the admin\'s 000001010000Z and an unreadable time lock for good; off, nothing is locked', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const { log } = recordingLogger();
    const lockout = new Lockout(policy({ maxFailures: 3, lockoutDuration: 60 }), store, log, new BackgroundTasks(log), () => now);
    const lockedAt = (value: string) => person(9, { pwdAccountLockedTime: value });
    assert.equal(lockout.isLocked('k', lockedAt('20300101000000Z')), true);
    now += 59_999;
    assert.equal(lockout.isLocked('k', lockedAt('20300101000000Z')), true);
    now += 1;
    assert.equal(lockout.isLocked('k', lockedAt('20300101000000Z')), false, 'expired');
    assert.equal(lockout.isLocked('k', lockedAt('000001010000Z')), true);
    assert.equal(lockout.isLocked('k', lockedAt('not a time')), true);
    assert.equal(lockout.isLocked('k', person(9)), false);
    const off = new Lockout(policy({ maxFailures: 0 }), store, log, new BackgroundTasks(log));
    assert.equal(off.isLocked('k', lockedAt('000001010000Z')), false);
    await off.failed(dnOf(3), keyOf(3));
    assert.equal(off.tracked, 0);
  });

  test('a success removes stored failure records and an expired lock, after answering; a live lock stays', async () => {
    const { log } = recordingLogger();
    const background = new BackgroundTasks(log);
    const lockout = new Lockout(policy({ maxFailures: 3, lockoutDuration: 60 }), store, log, background);
    const old = '20000101000000Z';
    await updateEntry(store, dnOf(4), () => [
      { op: 'replace', attribute: 'pwdAccountLockedTime', values: [Buffer.from(old)] },
      { op: 'replace', attribute: 'pwdFailureTime', values: [Buffer.from(old)] },
    ]);
    lockout.succeeded(dnOf(4), keyOf(4), (await store.get(dnOf(4)))!);
    assert.equal(text(await store.get(dnOf(4)), 'pwdFailureTime').length, 1, 'not yet: it runs after the answer');
    await background.drain();
    const cleared = await store.get(dnOf(4));
    assert.deepEqual([text(cleared, 'pwdAccountLockedTime'), text(cleared, 'pwdFailureTime')], [[], []]);

    const live = generalizedTime(new Date(), true);
    await updateEntry(store, dnOf(3), () => [{ op: 'replace', attribute: 'pwdAccountLockedTime', values: [Buffer.from(live)] }]);
    lockout.succeeded(dnOf(3), keyOf(3), person(3, { pwdFailureTime: old }));
    await background.drain();
    assert.deepEqual(text(await store.get(dnOf(3)), 'pwdAccountLockedTime'), [live], 'locked meanwhile: the lock stays');
  });

  test('re-encoding replaces only the exact old value; a password changed meanwhile is left alone', async () => {
    const { log, lines } = recordingLogger();
    const background = new BackgroundTasks(log);
    const target = { scheme: 'PBKDF2-SHA256', params: { iterations: 1000 } };
    const counters = newCounters();
    const upgrades = new PasswordUpgrades({ registry, store, log, background, countReencoded: () => Atomics.add(counters, 0, 1) + 1, rule: rehashRule(registry, policy({ deprecatedSchemes: ['SSHA'] })), ...target });
    const password = Buffer.from('secret');
    const ssha = await registry.encode('SSHA', password);
    await modifyEntry(store, dnOf(5), [{ op: 'replace', attribute: 'userPassword', values: [Buffer.from(ssha), Buffer.from('{SSHA512}other')] }], { actor: 'cn=admin' });
    await modifyEntry(store, dnOf(6), [{ op: 'replace', attribute: 'userPassword', values: [Buffer.from(ssha)] }], { actor: 'cn=admin' });

    upgrades.consider(dnOf(5), keyOf(5), password, ssha);
    upgrades.consider(dnOf(5), keyOf(5), password, ssha);
    upgrades.consider(dnOf(6), keyOf(6), password, ssha);
    // The user changes its password before the re-encoding (which waits for the answer, then hashes) gets the lock.
    await modifyEntry(store, dnOf(6), [{ op: 'replace', attribute: 'userPassword', values: [Buffer.from('{SSHA512}changed')] }], { actor: 'cn=admin' });
    await background.drain();

    const [upgraded, other] = text(await store.get(dnOf(5)), 'userPassword');
    assert.match(upgraded!, /^\{PBKDF2-SHA256\}1000\$/);
    assert.equal((await registry.verify(password, upgraded!)).status, 'match');
    assert.equal(other, '{SSHA512}other', 'the other value is kept');
    assert.deepEqual(text(await store.get(dnOf(6)), 'userPassword'), ['{SSHA512}changed']);
    const reencoded = lines.filter((line) => line.msg === 'password re-encoded after bind');
    assert.equal(reencoded.length, 1, 'one re-encoding per account at a time, none over a changed password');
    assert.equal(reencoded[0]!.fields.reencoded, 1);
    assert.equal(lines.filter((line) => line.msg === 'password not re-encoded: it changed meanwhile').length, 1);
    assert.equal(password.toString(), 'secret', 'the caller\'s buffer is not touched');
  });
});

describe('lockout: attempts reserved before a password is verified', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let store: DirectoryStore;
  before(async () => {
    ({ dir, store } = await storeWithUsers('leveldap-attempts-'));
  });
  after(async () => {
    await store?.close();
    await dir?.remove();
  });
  const lockoutOf = (settings: Partial<PasswordPolicy>, now?: () => number) => {
    const { log, lines } = recordingLogger();
    return { lockout: new Lockout(policy({ lockoutDuration: 0, ...settings }), store, log, new BackgroundTasks(log), now), lines };
  };
  /** A promise's state without waiting for it. */
  const settled = async (promise: Promise<boolean>): Promise<boolean | 'waiting'> => Promise.race([promise, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);

  test('the limit counts attempts being verified: the next bind waits its turn, in order, and a success frees the attempts', async () => {
    const { lockout } = lockoutOf({ maxFailures: 3 });
    assert.deepEqual([lockout.reserve(keyOf(1)), lockout.reserve(keyOf(1)), lockout.reserve(keyOf(1))], [true, true, true]);
    const fourth = lockout.reserve(keyOf(1));
    const fifth = lockout.reserve(keyOf(1));
    assert.ok(fourth instanceof Promise && fifth instanceof Promise, 'three attempts being verified: the next ones wait');
    assert.equal(lockout.reserve(keyOf(2)), true, 'another account is not affected');
    lockout.release(keyOf(2));
    assert.deepEqual(lockout.pending, { accounts: 1, inFlight: 3, waiting: 2 });

    lockout.release(keyOf(1));
    assert.equal(await settled(fourth), true, 'the first in line gets the attempt that ended');
    assert.equal(await settled(fifth), 'waiting');
    const newcomer = lockout.reserve(keyOf(1));
    assert.ok(newcomer instanceof Promise, 'a newcomer queues behind it');
    lockout.succeeded(dnOf(1), keyOf(1), person(1));
    assert.deepEqual([await settled(fifth), await settled(newcomer)], [true, 'waiting']);
    assert.deepEqual(lockout.pending, { accounts: 1, inFlight: 3, waiting: 1 });
    lockout.release(keyOf(1));
    assert.equal(await newcomer, true);
    for (let i = 0; i < 3; i++) lockout.release(keyOf(1));
    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 }, 'nothing left behind');
    lockout.release(keyOf(1));
    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 }, 'a release too many is harmless');
  });

  test('failures and attempts together: never more verified than the limit; the failure that locks refuses every waiting bind', async () => {
    const { lockout, lines } = lockoutOf({ maxFailures: 3 });
    assert.equal(lockout.reserve(keyOf(3)), true);
    await lockout.failed(dnOf(3), keyOf(3));
    assert.deepEqual([lockout.reserve(keyOf(3)), lockout.reserve(keyOf(3))], [true, true], 'one failure, two attempts left');
    const waiting = Array.from({ length: 20 }, () => lockout.reserve(keyOf(3)) as Promise<boolean>);
    assert.ok(waiting.every((reserved) => reserved instanceof Promise));
    await lockout.failed(dnOf(3), keyOf(3));
    assert.equal(await settled(waiting[0]!), 'waiting', 'a failure keeps its attempt: two failures and one attempt being verified');
    assert.deepEqual(lockout.pending, { accounts: 1, inFlight: 1, waiting: 20 });

    const locking = lockout.failed(dnOf(3), keyOf(3));
    assert.equal(lockout.reserve(keyOf(3)), false, 'while the lock is written, no attempt');
    assert.equal(lockout.lockedNow(dnOf(3), keyOf(3)), true);
    await locking;
    assert.deepEqual(await Promise.all(waiting), Array(20).fill(false), 'every waiting bind refused');
    assert.equal(lines.filter((line) => line.msg === 'account locked after failed binds').length, 1);
    assert.equal(text(await store.get(dnOf(3)), 'pwdAccountLockedTime').length, 1);
    assert.equal(lockout.lockedNow(dnOf(3), keyOf(3)), true, 'the stored lock, read now');
    assert.equal(lockout.isLocked(keyOf(3), (await store.get(dnOf(3)))!), true);

    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 });
    assert.equal(lockout.tracked, 0);
  });

  test('a waiting bind that gives its attempt back (it found the account locked) hands it to the next in line', async () => {
    const { lockout } = lockoutOf({ maxFailures: 1 });
    assert.equal(lockout.reserve(keyOf(4)), true);
    const [second, third] = [lockout.reserve(keyOf(4)), lockout.reserve(keyOf(4))] as Promise<boolean>[];
    lockout.release(keyOf(4));
    assert.equal(await second, true);
    assert.equal(await settled(third!), 'waiting');
    lockout.release(keyOf(4));
    assert.equal(await third, true);
    lockout.release(keyOf(4));
    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 });
  });

  test('failures that leave the window free attempts at the next hand-out; lockedNow sees a lock the admin stored meanwhile', async () => {
    let now = 1_000_000_000_000;
    const { lockout } = lockoutOf({ maxFailures: 2, failureWindow: 10 }, () => now);
    assert.equal(lockout.reserve(keyOf(5)), true);
    await lockout.failed(dnOf(5), keyOf(5));
    assert.equal(lockout.reserve(keyOf(5)), true);
    const [a, b] = [lockout.reserve(keyOf(5)), lockout.reserve(keyOf(5))] as Promise<boolean>[];
    now += 10_001;
    lockout.release(keyOf(5));
    assert.deepEqual([await a, await b], [true, true], 'the old failure no longer counts: two attempts');
    assert.equal(lockout.lockedNow(dnOf(5), keyOf(5)), false);
    await updateEntry(store, dnOf(5), () => [{ op: 'replace', attribute: 'pwdAccountLockedTime', values: [Buffer.from('000001010000Z')] }]);
    assert.equal(lockout.lockedNow(dnOf(5), keyOf(5)), true);
    lockout.release(keyOf(5));
    lockout.release(keyOf(5));
    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 });
  });

  test('a lock that cannot be stored (writes failing) holds in memory, and is written once writes work again', async () => {
    await addEntry(store, person(7, { userPassword: '{SSHA}old-7' }), { actor: 'cn=admin' });
    let failing = true;
    const write: DirectoryStore['write'] = async (...args) => {
      if (failing) throw new DirectoryError('other', 'entry update failed: no space left on device');
      return store.write(...args);
    };
    const node = Object.create(store, { write: { value: write } }) as DirectoryStore;
    const { log, lines } = recordingLogger();
    const lockout = new Lockout(policy({ maxFailures: 3, lockoutDuration: 0 }), node, log, new BackgroundTasks(log), Date.now, undefined, undefined, 20);
    const key = keyOf(7);
    for (let i = 0; i < 3; i += 1) {
      assert.equal(lockout.reserve(key, { dn: dnOf(7), entry: (await store.get(dnOf(7)))! }), true);
      await lockout.failed(dnOf(7), key);
    }
    assert.ok(lines.some((line) => line.msg?.startsWith('could not store an account lock')));
    const unlocked = (await store.get(dnOf(7)))!;
    assert.equal(text(unlocked, 'pwdAccountLockedTime').length, 0, 'nothing stored');
    assert.equal(lockout.isLocked(key, unlocked), true, 'locked all the same');
    assert.equal(lockout.lockedNow(dnOf(7), key), true);
    assert.equal(lockout.reserve(key, { dn: dnOf(7), entry: unlocked }), false, 'no attempt is verified');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(lockout.reserve(key, { dn: dnOf(7), entry: unlocked }), false, 'still locked while writes fail');
    failing = false;
    let stored: Entry | undefined;
    for (let tries = 0; tries < 100 && text(stored, 'pwdAccountLockedTime').length === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = await store.get(dnOf(7));
    }
    assert.equal(text(stored, 'pwdAccountLockedTime').length, 1, 'the lock is written once writes work');
    assert.equal(lockout.isLocked(key, stored!), true);
    assert.equal(lockout.tracked, 0);
  });

  test('one node of a shared store: its failures being shared at the same moment count each other (never more verified than the limit)', async () => {
    // Each round trip to the shared failures is held until the test lets it answer (no failures on other nodes).
    const answers: Array<() => void> = [];
    const shared: SharedFailures = { failed: async () => new Promise((resolve) => answers.push(() => resolve([]))), cleared: () => {} };
    const node = Object.create(store, { sharedFailures: { value: shared } }) as DirectoryStore;
    const { log } = recordingLogger();
    const lockout = new Lockout(policy({ maxFailures: 3, lockoutDuration: 0 }), node, log, new BackgroundTasks(log));
    const key = keyOf(6);
    assert.deepEqual([lockout.reserve(key), lockout.reserve(key), lockout.reserve(key)], [true, true, true]);
    const failing = [lockout.failed(dnOf(6), key), lockout.failed(dnOf(6), key)];
    for (const answer of answers.splice(0)) answer();
    await Promise.all(failing);
    const next = lockout.reserve(key);
    assert.ok(next instanceof Promise, 'two failures and one attempt being verified: no attempt left');
    const locking = lockout.failed(dnOf(6), key);
    for (const answer of answers.splice(0)) answer();
    await locking;
    assert.equal(await next, false, 'the third failure locks the account');
    assert.equal(text(await store.get(dnOf(6)), 'pwdAccountLockedTime').length, 1);
    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 });
  });

  test('bounded: 10,000 accounts reserving and ending attempts leave nothing in memory but failures (at most the limit each)', async () => {
    const { lockout } = lockoutOf({ maxFailures: 2 });
    const keys = Array.from({ length: 10_000 }, (_, i) => `uid=load.${i},ou=people,dc=example,dc=com`);
    for (const key of keys) assert.equal(lockout.reserve(key), true);
    assert.deepEqual(lockout.pending, { accounts: 10_000, inFlight: 10_000, waiting: 0 });
    for (const [i, key] of keys.entries()) {
      if (i % 2 === 0) lockout.succeeded(parseDn(key), key, person(6));
      else await lockout.failed(parseDn(key), key);
    }
    assert.deepEqual(lockout.pending, { accounts: 0, inFlight: 0, waiting: 0 });
    assert.equal(lockout.tracked, 5_000, 'the failures are kept, within TRACKED_ACCOUNTS');
  });
});

describe('lockout: a full map stores failures in the entry, never forgets them (trackedAccounts 50)', () => {
  const suite = storeForSuite('leveldap-eviction-');
  const TRACKED = 50;
  const lockoutOf = (settings: Partial<PasswordPolicy>, now?: () => number) => {
    const { log, lines } = recordingLogger();
    const background = new BackgroundTasks(log);
    return { lockout: new Lockout(policy({ maxFailures: 3, failureWindow: 300, ...settings }), suite.store, log, background, now, TRACKED), lines, background };
  };
  /** What a wrong-password bind of an entry does: read it, reserve an attempt (its stored failures count), fail. */
  async function failBind(lockout: Lockout, n: number): Promise<void> {
    const entry = suite.store.getSync(dnOf(n));
    assert.ok(entry, `user.${n} exists`);
    if (lockout.isLocked(keyOf(n), entry)) return;
    assert.equal(lockout.reserve(keyOf(n), { dn: dnOf(n), entry }), true);
    await lockout.failed(dnOf(n), keyOf(n));
  }
  /** One failure each for `count` accounts that are not entries (they fill the map; storing theirs writes nothing). */
  async function fillWith(lockout: Lockout, count: number, tag: string): Promise<void> {
    for (let i = 0; i < count; i++) {
      const key = `uid=${tag}.${i},ou=people,dc=example,dc=com`;
      assert.equal(lockout.reserve(key), true);
      await lockout.failed(parseDn(key), key);
    }
  }
  const stored = async (n: number, name: string) => text(await suite.store.get(dnOf(n)), name);

  test('2 failures, then 50 other accounts fail: the 2 are stored as pwdFailureTime, and 1 more failure locks (limit 3)', async () => {
    const { lockout, lines } = lockoutOf({ lockoutDuration: 0 });
    await failBind(lockout, 1);
    await failBind(lockout, 1);
    await fillWith(lockout, TRACKED, 'a');
    assert.equal(lockout.tracked, TRACKED, 'the map stays bounded');
    assert.equal(lockout.evicted, 1);
    const failures = await stored(1, 'pwdFailureTime');
    assert.equal(failures.length, 2, String(failures));
    assert.ok(failures.every((value) => /^\d{14}\.\d{3}Z$/.test(value)));
    assert.deepEqual(await stored(1, 'modifiersName'), ['cn=admin'], 'not a client\'s modification');
    await failBind(lockout, 1);
    assert.equal((await stored(1, 'pwdAccountLockedTime')).length, 1, 'the third failure locks');
    assert.equal((await stored(1, 'pwdFailureTime')).length, 3);
    assert.equal(lines.filter((line) => line.msg === 'account locked after failed binds').length, 1);
  });

  test('accounts whose failures left the window go first: nothing is written for them', async () => {
    let now = Date.parse('2031-01-01T00:00:00Z');
    const { lockout } = lockoutOf({ failureWindow: 10 }, () => now);
    await failBind(lockout, 2);
    await fillWith(lockout, TRACKED - 1, 'b');
    now += 10_001;
    await fillWith(lockout, 5, 'c');
    assert.equal(lockout.evicted, 0, 'room made by dropping expired accounts');
    assert.deepEqual(await stored(2, 'pwdFailureTime'), []);
    assert.equal(lockout.tracked, 5);
  });

  test('an account with a bind being verified is not the one stored; a success voids stored failures at once', async () => {
    const { lockout, background } = lockoutOf({ lockoutDuration: 0 });
    await failBind(lockout, 3);
    await failBind(lockout, 4);
    const entry3 = suite.store.getSync(dnOf(3))!;
    assert.equal(lockout.reserve(keyOf(3), { dn: dnOf(3), entry: entry3 }), true, 'user.3 is being verified');
    await fillWith(lockout, TRACKED - 1, 'd');
    assert.equal(lockout.evicted, 1);
    assert.deepEqual(await stored(3, 'pwdFailureTime'), [], 'user.3 stays in memory');
    assert.equal((await stored(4, 'pwdFailureTime')).length, 1, 'user.4, the next least recent, was stored');
    lockout.release(keyOf(3));

    const stale = suite.store.getSync(dnOf(4))!;
    lockout.succeeded(dnOf(4), keyOf(4), stale);
    assert.equal(lockout.reserve(keyOf(4), { dn: dnOf(4), entry: stale }), true, 'the entry read before the clear');
    await lockout.failed(dnOf(4), keyOf(4));
    await background.drain();
    assert.deepEqual(await stored(4, 'pwdFailureTime'), [], 'the success removed the stored failure');
    await failBind(lockout, 4);
    assert.deepEqual(await stored(4, 'pwdAccountLockedTime'), [], 'two failures since the success: not locked');
    await failBind(lockout, 4);
    assert.equal((await stored(4, 'pwdAccountLockedTime')).length, 1);
  });

  test('the failures a lock recorded do not count again once it expired', async () => {
    let now = Date.parse('2032-01-01T00:00:00Z');
    const { lockout } = lockoutOf({ lockoutDuration: 60 }, () => now);
    for (let i = 0; i < 3; i++) await failBind(lockout, 5);
    assert.equal((await stored(5, 'pwdAccountLockedTime')).length, 1);
    now += 61_000;
    await failBind(lockout, 5);
    await failBind(lockout, 5);
    assert.equal(lockout.isLocked(keyOf(5), suite.store.getSync(dnOf(5))!), false, 'two failures since the lock expired');
    await failBind(lockout, 5);
    assert.equal(lockout.isLocked(keyOf(5), suite.store.getSync(dnOf(5))!), true);
  });

  test('failures alone never refuse a bind, only a lock does: a lock the admin back-dated, failure times the admin wrote (review 2026-12-08)', async () => {
    const { lockout } = lockoutOf({ lockoutDuration: 600 });
    const failures = [3, 2, 1].map((seconds) => generalizedTime(new Date(Date.now() - seconds * 1000), true));
    for (const n of [7, 8]) await addEntry(suite.store, person(n, { userPassword: `{SSHA}old-${n}` }), { actor: 'cn=admin' });
    await updateEntry(suite.store, dnOf(7), () => [
      { op: 'replace', attribute: 'pwdAccountLockedTime', values: [Buffer.from('20000101000000Z')] },
      { op: 'replace', attribute: 'pwdFailureTime', values: failures.map((value) => Buffer.from(value)) },
    ]);
    await updateEntry(suite.store, dnOf(8), () => [{ op: 'replace', attribute: 'pwdFailureTime', values: failures.map((value) => Buffer.from(value)) }]);
    for (const n of [7, 8]) {
      const entry = suite.store.getSync(dnOf(n))!;
      assert.equal(lockout.isLocked(keyOf(n), entry), false, `user.${n} holds no lock in force`);
      assert.equal(lockout.reserve(keyOf(n), { dn: dnOf(n), entry }), true, `user.${n}: its right password may be verified`);
    }
    lockout.succeeded(dnOf(7), keyOf(7), suite.store.getSync(dnOf(7))!);
    await lockout.failed(dnOf(8), keyOf(8));
    assert.equal((await stored(8, 'pwdAccountLockedTime')).length, 1, 'a wrong one locks');
  });
});
