/**
 * Lockout when its map of accounts is full, through `leveldap serve` (--max-failures 3, a map of
 * 50 accounts through LEVELDAP_LOCKOUT_TRACKED_ACCOUNTS instead of 100,000): an account that
 * failed twice, then 50 others failing once, has its 2 failures stored as pwdFailureTime; they
 * survive kill -9 and a restart, and the next wrong password locks the account. Before, the 50
 * others made the server forget the 2, so 2 guesses per window went on for ever. The admin's
 * unlock removes the stored failures with the lock.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection } from '../helpers/ldap-client.js';
import { bindRequest, exchange, modifyRequest } from '../helpers/ldap-requests.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
const ARGS = ['--threads', '1', '--max-failures', '3', '--failure-window', '300', '--lockout-duration', '0'];
const ENV = { LEVELDAP_LOCKOUT_TRACKED_ACCOUNTS: '50' };

async function bindCode(server: LeveldapServer, dn: string, password: string): Promise<number | undefined> {
  const connection = await RawConnection.open(server.port);
  try {
    return (await exchange(connection, 1, bindRequest(1, dn, password))).code;
  } finally {
    connection.socket.destroy();
  }
}

async function read(server: LeveldapServer, dn: string, attribute: string): Promise<string[]> {
  const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', attribute],
    { dn: server.adminDn, passwordFile: server.adminPasswordFile });
  assert.equal(result.code, 0, result.stderr);
  return valuesOf(parseLdifOutput(result.stdout)[0]!, attribute);
}

describe('leveldap serve: lockout with its map full (50 accounts, --max-failures 3)', () => {
  let first: LeveldapServer;
  let second: LeveldapServer | undefined;
  before(async () => {
    first = await startLeveldap({ users: 60, args: ARGS, env: ENV });
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  test('2 failures, 50 other accounts fail once: the 2 are stored, survive kill -9, and the next failure locks', async () => {
    for (let i = 0; i < 2; i++) assert.equal(await bindCode(first, userDn(0), 'wrong'), 49);
    for (let n = 1; n <= 50; n++) assert.equal(await bindCode(first, userDn(n), 'wrong'), 49);
    assert.equal((await read(first, userDn(0), 'pwdFailureTime')).length, 2, 'user.0\'s failures, stored to make room');
    assert.deepEqual(await read(first, userDn(1), 'pwdFailureTime'), [], 'the others are still in memory');

    first.process.kill('SIGKILL');
    await first.terminate();
    second = await startLeveldap({ dir: first.dir, args: ARGS, env: ENV });
    assert.equal((await read(second, userDn(0), 'pwdFailureTime')).length, 2, 'the write survived kill -9');
    assert.equal(await bindCode(second, userDn(0), 'wrong'), 49);
    assert.equal((await read(second, userDn(0), 'pwdAccountLockedTime')).length, 1, 'the third failure locked the account');
    assert.equal(await bindCode(second, userDn(0), 'password'), 49, 'locked: the right password answers 49');
  });

  test('the admin\'s unlock removes the stored failures too: one more wrong password does not lock again', async () => {
    const server = second!;
    const admin = await RawConnection.open(server.port);
    assert.equal((await exchange(admin, 1, bindRequest(1, server.adminDn, server.adminPassword))).code, 0);
    const unlock = await exchange(admin, 2, modifyRequest(2, userDn(0), [{ op: 'delete', attribute: 'pwdAccountLockedTime' }]));
    admin.socket.destroy();
    assert.equal(unlock.code, 0, unlock.message);
    assert.deepEqual(await read(server, userDn(0), 'pwdFailureTime'), []);
    assert.equal(await bindCode(server, userDn(0), 'wrong'), 49);
    assert.equal(await bindCode(server, userDn(0), 'password'), 0);
  });
});
