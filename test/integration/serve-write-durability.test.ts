/**
 * Writes that must not be lost. A crash: clients fire adds and modifies at `leveldap serve`,
 * the server is killed with SIGKILL in the middle of the burst, restarted on the same database,
 * and every write that was acknowledged is there. Concurrency: 32 clients increment one integer
 * attribute and add distinct values to one entry, their requests pipelined; no update is lost.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection, type Credentials } from '../helpers/ldap-client.js';
import { addRequest, answer, bindRequest, exchange, modifyRequest, type ChangeSpec } from '../helpers/ldap-requests.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;

const missing = ['ldapsearch', 'ldapmodify'].filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

/** A connection bound as the admin. */
async function adminConnection(server: LeveldapServer): Promise<RawConnection> {
  const connection = await RawConnection.open(server.port);
  const bound = await exchange(connection, 1, bindRequest(1, server.adminDn, server.adminPassword));
  assert.equal(bound.code, 0, bound.message);
  return connection;
}

async function searchAll(server: LeveldapServer, admin: Credentials, filter: string, attribute: string): Promise<Map<string, string[]>> {
  const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', PEOPLE, filter, attribute], admin);
  assert.equal(result.code, 0, result.stderr);
  return new Map(parseLdifOutput(result.stdout).map((entry) => [entry.dn.toLowerCase(), valuesOf(entry, attribute)]));
}

describe('leveldap serve: acknowledged writes survive kill -9', { skip }, () => {
  const CLIENTS = 8;
  /** The server is killed once this many writes were acknowledged (more are in flight). */
  const KILL_AFTER = 240;
  let server: LeveldapServer;
  let restarted: LeveldapServer | undefined;

  before(async () => { server = await startLeveldap({ users: 20 }); });
  after(async () => {
    await restarted?.stop();
    await server?.stop();
  });

  test('a burst of adds and modifies, SIGKILL mid-burst, restart: every acknowledged write is there', async () => {
    const ackedAdds: string[] = [];
    const ackedValues: { dn: string; value: string }[] = [];
    let killed = false;
    const exit = once(server.process, 'exit');

    /** Client c: alternately adds uid=crash-c-n and adds title t-c-n to user.c, one request at a time, until the kill. */
    async function client(c: number): Promise<void> {
      const connection = await adminConnection(server);
      try {
        for (let n = 0, id = 2; !killed; n += 1, id += 1) {
          const isAdd = n % 2 === 0;
          const dn = isAdd ? `uid=crash-${c}-${n},${PEOPLE}` : userDn(c);
          const value = `t-${c}-${n}`;
          connection.write(isAdd
            ? addRequest(id, dn, [['objectClass', ['account']], ['uid', [`crash-${c}-${n}`]]])
            : modifyRequest(id, dn, [{ op: 'add', attribute: 'title', values: [value] }]));
          const response = await answer(connection, id, 10_000);
          if (!response) return; // the server died with this write in flight: not acknowledged
          assert.equal(response.code, 0, response.message);
          if (isAdd) ackedAdds.push(dn.toLowerCase());
          else ackedValues.push({ dn: dn.toLowerCase(), value });
          if (!killed && ackedAdds.length + ackedValues.length >= KILL_AFTER) {
            killed = true;
            server.process.kill('SIGKILL');
          }
        }
      } finally {
        connection.destroy();
      }
    }

    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const [, signal] = await exit;
    assert.equal(signal, 'SIGKILL');
    assert.ok(ackedAdds.length + ackedValues.length >= KILL_AFTER);

    restarted = await startLeveldap({ dir: server.dir });
    const admin = { dn: restarted.adminDn, passwordFile: restarted.adminPasswordFile };
    const added = await searchAll(restarted, admin, '(uid=crash-*)', 'uid');
    const lost = ackedAdds.filter((dn) => !added.has(dn));
    assert.deepEqual(lost, [], `${lost.length} of ${ackedAdds.length} acknowledged adds are missing`);
    const titles = await searchAll(restarted, admin, '(title=t-*)', 'title');
    const lostValues = ackedValues.filter(({ dn, value }) => !(titles.get(dn) ?? []).includes(value));
    assert.deepEqual(lostValues, [], `${lostValues.length} of ${ackedValues.length} acknowledged modifies are missing`);
    const indexed = await searchAll(restarted, admin, `(uid=${ackedAdds[0]!.slice(4, ackedAdds[0]!.indexOf(','))})`, 'uid');
    assert.deepEqual([...indexed.keys()], [ackedAdds[0]], 'an added entry is found through the uid index after the restart');
  });
});

describe('leveldap serve: concurrent writes to one entry', { skip }, () => {
  const CLIENTS = 32;
  const EACH = 25;
  let server: LeveldapServer;
  let admin: Credentials;

  before(async () => {
    server = await startLeveldap({ users: 10 });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
    const setUp = await ldapTool('ldapmodify', server.url, [], admin,
      `dn: ${userDn(1)}\nchangetype: modify\nadd: objectClass\nobjectClass: extensibleObject\n-\nadd: uidNumber\nuidNumber: 0\n\ndn: ${userDn(2)}\nchangetype: modify\nreplace: description\n`);
    assert.equal(setUp.code, 0, setUp.stderr);
  });
  after(async () => { await server?.stop(); });

  /** 32 connections, each pipelining EACH modifies of `dn` (so up to 32 x 25 are in progress at once). */
  async function burst(dn: string, change: (client: number, n: number) => ChangeSpec): Promise<void> {
    const connections = await Promise.all(Array.from({ length: CLIENTS }, () => adminConnection(server)));
    try {
      await Promise.all(connections.map(async (connection, c) => {
        const ids = Array.from({ length: EACH }, (_, n) => n + 2);
        connection.write(Buffer.concat(ids.map((id, n) => modifyRequest(id, dn, [change(c, n)]))));
        for (const id of ids) {
          const response = await answer(connection, id);
          assert.equal(response?.code, 0, response?.message ?? `client ${c}: no answer to ${id}`);
        }
      }));
    } finally {
      connections.forEach((connection) => connection.destroy());
    }
  }

  test(`${CLIENTS} clients x ${EACH} increments of one integer attribute: the sum is exact`, async () => {
    await burst(userDn(1), () => ({ op: 'increment', attribute: 'uidNumber', values: ['1'] }));
    const values = (await searchAll(server, admin, '(uid=user.1)', 'uidNumber')).get(userDn(1).toLowerCase());
    assert.deepEqual(values, [String(CLIENTS * EACH)]);
  });

  test(`${CLIENTS} clients x ${EACH} distinct values added to one entry: all there`, async () => {
    await burst(userDn(2), (c, n) => ({ op: 'add', attribute: 'description', values: [`value-${c}-${n}`] }));
    const values = (await searchAll(server, admin, '(uid=user.2)', 'description')).get(userDn(2).toLowerCase()) ?? [];
    assert.equal(values.length, CLIENTS * EACH);
    assert.equal(new Set(values).size, CLIENTS * EACH);
  });
});
