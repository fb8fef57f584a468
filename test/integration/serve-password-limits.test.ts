/**
 * How many userPassword values a write may set and a bind may verify, through `leveldap serve`
 * and raw modify requests. A user (not the admin) sets one value in a whole operation, however
 * many changes it splits them into, and its entry holds one value at most (constraintViolation,
 * 19); the admin may store many, and its modify of 10,000 one-value changes is applied in linear
 * time; a bind verifies only the first MAX_VERIFIED_VALUES (4) stored values.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry } from '../../src/password/index.js';
import { MAX_VERIFIED_VALUES } from '../../src/policy/verified-values.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { RawConnection, ldapTool, parseLdifOutput, valuesOf } from '../helpers/ldap-client.js';
import { bindRequest, exchange, modifyRequest, type ChangeSpec } from '../helpers/ldap-requests.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
const registry = createRegistry();

describe('leveldap serve: userPassword values per operation, per entry, per bind', () => {
  let server: LeveldapServer;
  before(async () => {
    server = await startLeveldap({ users: 20, args: ['--threads', '1', '--default-scheme', 'SSHA512'] });
  });
  after(async () => { await server?.stop(); });

  let nextId = 1;
  /** A connection bound as `dn`. */
  async function boundAs(dn: string, password: string): Promise<RawConnection> {
    const connection = await RawConnection.open(server.port);
    const id = nextId++;
    const bound = await exchange(connection, id, bindRequest(id, dn, password));
    assert.equal(bound.code, 0, `bind as ${dn}`);
    return connection;
  }
  async function modify(connection: RawConnection, dn: string, changes: readonly ChangeSpec[]) {
    const id = nextId++;
    return exchange(connection, id, modifyRequest(id, dn, changes));
  }
  async function bindCode(dn: string, password: string): Promise<number | undefined> {
    const connection = await RawConnection.open(server.port);
    const id = nextId++;
    const response = await exchange(connection, id, bindRequest(id, dn, password));
    connection.socket.destroy();
    return response.code;
  }
  async function read(dn: string, attribute: string): Promise<string[]> {
    const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-o', 'ldif-wrap=no', '-b', dn, '-s', 'base', '(objectClass=*)', attribute],
      { dn: server.adminDn, passwordFile: server.adminPasswordFile });
    assert.equal(result.code, 0, result.stderr);
    return valuesOf(parseLdifOutput(result.stdout)[0]!, attribute);
  }
  const admin = () => boundAs(server.adminDn, server.adminPassword);
  const addPassword = (value: string): ChangeSpec => ({ op: 'add', attribute: 'userPassword', values: [value] });

  test('a user\'s modify with several one-value "add: userPassword" changes: 19 for the whole operation, nothing stored', async () => {
    const connection = await boundAs(userDn(1), 'password');
    const before = await read(userDn(1), 'userPassword');
    const three = await modify(connection, userDn(1), [addPassword('first-new-secret'), addPassword('second-new-secret'), addPassword('third-new-secret')]);
    assert.equal(three.code, 19, three.message);
    assert.equal(three.message, 'userPassword: only one password value may be set at a time');
    const started = performance.now();
    const many = await modify(connection, userDn(1), Array.from({ length: 10_000 }, (_, i) => addPassword(`new-secret-${i}`)));
    const millis = performance.now() - started;
    assert.equal(many.code, 19, many.message);
    assert.ok(millis < 5000, `refused in ${millis.toFixed(0)} ms, before anything is hashed`);
    assert.deepEqual(await read(userDn(1), 'userPassword'), before, 'the entry keeps its one value');
    connection.socket.destroy();
  });

  test('a user holds one value: adding a second answers 19; replacing, or deleting the old one and adding a new one, works', async () => {
    const connection = await boundAs(userDn(2), 'password');
    const [old] = await read(userDn(2), 'userPassword');
    const second = await modify(connection, userDn(2), [addPassword('another-secret')]);
    assert.equal(second.code, 19, second.message);
    assert.equal(second.message, 'userPassword: password policy only allows one password value');
    assert.deepEqual(await read(userDn(2), 'userPassword'), [old]);
    const options = await modify(connection, userDn(2), [{ op: 'add', attribute: 'userPassword;x-device', values: ['device-secret'] }]);
    assert.equal(options.code, 19, 'a value under an option is a userPassword value too');
    assert.equal(await bindCode(userDn(2), 'another-secret'), 49);

    const swapped = await modify(connection, userDn(2), [{ op: 'delete', attribute: 'userPassword', values: [old!] }, addPassword('swapped-secret')]);
    assert.equal(swapped.code, 0, swapped.message);
    assert.equal(await bindCode(userDn(2), 'swapped-secret'), 0);
    const replaced = await modify(connection, userDn(2), [{ op: 'replace', attribute: 'userPassword', values: ['replaced-secret'] }]);
    assert.equal(replaced.code, 0, replaced.message);
    assert.equal((await read(userDn(2), 'userPassword')).length, 1);
    assert.equal(await bindCode(userDn(2), 'replaced-secret'), 0);
    connection.socket.destroy();
  });

  test('a user whose entry the admin gave several values may still reduce them, not add to them', async () => {
    const hashes = await Promise.all(['one-secret', 'two-secret', 'three-secret'].map((password) => registry.encode('SSHA512', Buffer.from(password))));
    const asAdmin = await admin();
    assert.equal((await modify(asAdmin, userDn(3), [{ op: 'replace', attribute: 'userPassword', values: hashes }])).code, 0);
    asAdmin.socket.destroy();
    const connection = await boundAs(userDn(3), 'one-secret');
    const added = await modify(connection, userDn(3), [{ op: 'delete', attribute: 'userPassword', values: [hashes[2]!] }, addPassword('four-secret')]);
    assert.equal(added.code, 19, 'it would still hold three');
    const deleted = await modify(connection, userDn(3), [{ op: 'delete', attribute: 'userPassword', values: [hashes[2]!] }]);
    assert.equal(deleted.code, 0, deleted.message);
    assert.equal((await read(userDn(3), 'userPassword')).length, 2);
    connection.socket.destroy();
  });

  test('the admin\'s modify of 10,000 one-value changes (description, then pre-hashed userPassword) succeeds well within 5 s', async () => {
    const connection = await admin();
    const descriptions = Array.from({ length: 10_000 }, (_, i): ChangeSpec => ({ op: 'add', attribute: 'description', values: [`note ${i}`] }));
    let started = performance.now();
    const described = await modify(connection, userDn(4), descriptions);
    const describeMillis = performance.now() - started;
    assert.equal(described.code, 0, described.message);
    assert.equal((await read(userDn(4), 'description')).length, 10_001, 'make-ldif\'s description and 10,000 more');

    const hashes = await Promise.all(Array.from({ length: 10_000 }, () => registry.encode('SSHA', Buffer.from('many-secret'))));
    started = performance.now();
    const passwords = await modify(connection, userDn(5), hashes.map(addPassword));
    const passwordMillis = performance.now() - started;
    assert.equal(passwords.code, 0, passwords.message);
    assert.equal((await read(userDn(5), 'userPassword')).length, 10_001);
    console.log(`10,000 one-value changes: description ${describeMillis.toFixed(0)} ms, pre-hashed userPassword ${passwordMillis.toFixed(0)} ms`);
    assert.ok(describeMillis < 5000 && passwordMillis < 5000, `${describeMillis.toFixed(0)} ms, ${passwordMillis.toFixed(0)} ms`);
    connection.socket.destroy();
  });

  test(`a bind verifies the first ${MAX_VERIFIED_VALUES} stored values only`, async () => {
    const passwords = Array.from({ length: MAX_VERIFIED_VALUES + 2 }, (_, i) => `value-${i}-secret`);
    const hashes = await Promise.all(passwords.map((password) => registry.encode('SSHA512', Buffer.from(password))));
    const connection = await admin();
    assert.equal((await modify(connection, userDn(6), [{ op: 'replace', attribute: 'userPassword', values: hashes }])).code, 0);
    connection.socket.destroy();
    assert.equal(await bindCode(userDn(6), passwords[0]!), 0);
    assert.equal(await bindCode(userDn(6), passwords[MAX_VERIFIED_VALUES - 1]!), 0, `value #${MAX_VERIFIED_VALUES - 1} binds`);
    assert.equal(await bindCode(userDn(6), passwords[MAX_VERIFIED_VALUES]!), 49, `value #${MAX_VERIFIED_VALUES} is never verified`);
    assert.equal(await bindCode(userDn(6), passwords[MAX_VERIFIED_VALUES + 1]!), 49);
  });
});
