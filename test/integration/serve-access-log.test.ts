/**
 * The access log's fields, read from the lines a real server writes while OpenLDAP's clients
 * (ldapsearch with attributes and controls, ldapwhoami) and a raw connection use it: a search's
 * requested attributes, the controls sent (OID and criticality), the entries returned, the
 * diagnostic message of a non-zero result, a bind's scheme and whether the verified-bind cache
 * answered, and wtime (queued behind a costly bind on the same connection) and etime. No
 * password appears. Lines are written after the answer, so each is waited for.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry } from '../../src/password/index.js';
import { findProgram } from '../../src/harness/slapd.js';
import { accountLdif, startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, RawConnection, type Credentials } from '../helpers/ldap-client.js';
import { answer, bindRequest, searchRequest } from '../helpers/ldap-requests.js';
import { operationRecords, waitForOperation, type LogRecord } from '../helpers/server-log.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const USERS = 20;
const userDn = (uid: string) => `uid=${uid},${PEOPLE}`;
const user = (uid: string, password = 'password'): Credentials => ({ dn: userDn(uid), password });
const PAGED = '1.2.840.113556.1.4.319';
const MANAGE_DSA_IT = '2.16.840.1.113730.3.4.2';
const ASSERTION = '1.3.6.1.1.12';
/** The No-Op control as OpenLDAP's clients send it (its experimental OID). */
const NO_OP = '1.3.6.1.4.1.4203.666.5.2';
/** Passwords of the accounts this test adds: the log must never show them. */
const CACHED_SECRET = 'cached-Secret-41b7';
const SLOW_SECRET = 'slow-Secret-9e02';

const TOOLS = ['ldapsearch', 'ldapwhoami'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

describe('leveldap serve: the access log says where the time went', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;

  before(async () => {
    const registry = createRegistry();
    const ldif = [
      accountLdif('cached', await registry.encode('PBKDF2-SHA256', Buffer.from(CACHED_SECRET), { iterations: 1000 })),
      accountLdif('slow', await registry.encode('PBKDF2-SHA256', Buffer.from(SLOW_SECRET), { iterations: 400_000 })),
    ].join('\n');
    // One thread: the verified-bind cache is each thread's own, and ldapwhoami's connections would land on either.
    server = await startLeveldap({ users: USERS, ldif, args: ['--bind-cache-ttl', '60', '--threads', '1'] });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  });
  after(async () => { await server?.stop(); });

  const search = (args: readonly string[], as?: Credentials) => ldapTool('ldapsearch', server.url, ['-LLL', ...args], as);
  const whoami = (as: Credentials) => ldapTool('ldapwhoami', server.url, [], as);
  const searchLine = (filter: string) => waitForOperation(server, (record) => record['op'] === 'search' && record['filter'] === filter);
  /** The access-log lines of the binds of `dn` (as sent), in order, once there are `count` of them. */
  async function bindLines(dn: string, count: number): Promise<LogRecord[]> {
    const binds = () => operationRecords(server).filter((record) => record['op'] === 'bind' && record['dn'] === dn);
    await waitForOperation(server, () => binds().length >= count);
    return binds();
  }
  /** The controls of a line, in OID order (a client sends them in an order of its own). */
  const controlsOf = (line: LogRecord) => [...(line['controls'] as { oid: string }[])].sort((a, b) => a.oid.localeCompare(b.oid));

  test('a search logs its requested attributes, the controls sent, the entries returned, wtime and etime', async () => {
    const found = await search(['-b', PEOPLE, '-e', '!manageDSAit', '-e', `assert=(objectClass=*)`, '(uid=user.3)', 'cn', 'mail']);
    assert.equal(found.code, 0, found.stderr);
    const line = await searchLine('(uid=user.3)');
    assert.equal(line['code'], 0);
    assert.deepEqual(line['attrs'], ['cn', 'mail']);
    assert.deepEqual(controlsOf(line), [{ oid: ASSERTION, critical: false }, { oid: MANAGE_DSA_IT, critical: true }]);
    assert.equal(line['entries'], 1);
    assert.equal(line['message'], undefined, 'no message with a success');
    for (const field of ['wtime', 'etime']) assert.ok(typeof line[field] === 'number' && line[field] >= 0, `${field}: ${line[field]}`);

    const paged = await search(['-b', PEOPLE, '-s', 'one', '-E', 'pr=100/noprompt', '(objectClass=inetOrgPerson)']);
    assert.equal(paged.code, 0, paged.stderr);
    const all = await searchLine('(objectClass=inetOrgPerson)');
    assert.deepEqual(all['attrs'], [], 'no attributes requested: all user attributes');
    assert.deepEqual(all['controls'], [{ oid: PAGED, critical: false }]);
    assert.equal(all['entries'], USERS + 2);
  });

  test('a non-zero result logs the diagnostic message sent with it', async () => {
    const refused = await search(['-b', PEOPLE, '-e', '!noop', '(uid=user.4)', 'cn']);
    assert.equal(refused.code, 12, refused.stderr);
    const line = await searchLine('(uid=user.4)');
    assert.equal(line['code'], 12);
    assert.equal(line['message'], `critical control ${NO_OP} is not supported`);
    assert.deepEqual(line['controls'], [{ oid: NO_OP, critical: true }]);
    assert.equal(line['entries'], 0);

    const badBase = await search(['-b', 'not a DN', '(uid=user.5)']);
    assert.equal(badBase.code, 34, badBase.stderr);
    const bad = await searchLine('(uid=user.5)');
    assert.equal(bad['code'], 34);
    assert.match(bad['message'] as string, /^invalid DN "not a DN"/);

    const missingBase = await search(['-b', `ou=Nowhere,${PEOPLE}`, '(uid=user.7)']);
    assert.equal(missingBase.code, 32, missingBase.stderr);
    const miss = await searchLine('(uid=user.7)');
    assert.equal(miss['code'], 32);
    assert.equal(miss['message'], undefined, 'none was sent (the matched DN says where the search stopped)');
  });

  test('a bind logs the scheme that verified and whether the verified-bind cache answered; a failed one neither', async () => {
    assert.equal((await whoami(user('user.1'))).code, 0);
    const [plain] = await bindLines(userDn('user.1'), 1);
    assert.equal(plain!['scheme'], 'SSHA512');
    assert.equal(plain!['cached'], false, 'SSHA512 is not cached');

    assert.equal((await whoami(user('cached', CACHED_SECRET))).code, 0);
    assert.equal((await whoami(user('cached', CACHED_SECRET))).code, 0);
    assert.equal((await whoami(user('cached', 'not-the-secret'))).code, 49);
    const [first, second, wrong] = await bindLines(userDn('cached'), 3);
    assert.deepEqual([first!['scheme'], first!['cached']], ['PBKDF2-SHA256', false], 'the first bind verifies');
    assert.deepEqual([second!['scheme'], second!['cached']], ['PBKDF2-SHA256', true], 'the second comes from the cache');
    assert.equal(wrong!['code'], 49);
    assert.equal(wrong!['scheme'], undefined);
    assert.equal(wrong!['cached'], undefined);

    assert.equal((await whoami(admin)).code, 0);
    const [root] = await bindLines(server.adminDn, 1);
    assert.equal(typeof root!['scheme'], 'string', 'the admin\'s hash has a scheme too');
  });

  test('wtime: a search sent behind a costly bind on the same connection waits for it (binds run alone)', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      connection.write(Buffer.concat([bindRequest(1, userDn('slow'), SLOW_SECRET), searchRequest(2, PEOPLE, { filter: { equality: ['uid', 'user.6'] } })]));
      assert.equal((await answer(connection, 1))?.code, 0);
      assert.equal((await answer(connection, 2))?.code, 0);
    } finally {
      connection.destroy();
    }
    const [bind] = await bindLines(userDn('slow'), 1);
    const queued = await searchLine('(uid=user.6)');
    const bindTime = bind!['etime'] as number;
    assert.ok(bindTime > 2, `the bind ran ${bindTime} ms`);
    assert.ok((bind!['wtime'] as number) < bindTime, 'the bind did not wait');
    assert.ok((queued['wtime'] as number) >= bindTime * 0.9, `the search waited ${queued['wtime']} ms behind a bind of ${bindTime} ms`);
  });

  test('no password appears in the log', () => {
    const everything = server.logs().join('\n') + server.stderr();
    for (const secret of [server.adminPassword, CACHED_SECRET, SLOW_SECRET, 'not-the-secret']) {
      assert.ok(!everything.includes(secret), `the log must not contain ${JSON.stringify(secret)}`);
    }
  });
});
