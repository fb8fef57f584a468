/**
 * Lockout across the nodes of a PostgreSQL store (src/store/postgres/failures.ts, docs/scale-out.md):
 * three real `serve --store` nodes over a cluster started here, --max-failures 3. Wrong passwords
 * tried one after another on nodes a, b and c lock the account (each node alone saw one failure:
 * without the shared count nothing would lock), and the lock holds on every node. Wrong passwords
 * sent at once to all three nodes verify at most nodes x --max-failures times (the documented
 * overshoot), and lock the account too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import pg from 'pg';
import { postgresUnavailable, startPostgres, type PostgresCluster } from '../../src/harness/postgres.js';
import { run } from '../../src/harness/run.js';
import { eventually } from '../helpers/eventually.js';
import { ldapTool } from '../helpers/ldap-client.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { leveldapBin } from '../helpers/paths.js';
import { tempDir } from '../helpers/store.js';

const unavailable = postgresUnavailable();
const MAX_FAILURES = 3;
const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number): string => `uid=user.${n},${PEOPLE}`;

async function bind(node: LeveldapServer, dn: string, password: string): Promise<number> {
  return (await ldapTool('ldapwhoami', node.url, [], { dn, password })).code;
}

describe('lockout across three nodes of a PostgreSQL store', { skip: unavailable }, () => {
  let cluster: PostgresCluster;
  let nodes: LeveldapServer[] = [];
  let db: pg.Client;

  before(async () => {
    cluster = await startPostgres();
    const dir = await tempDir();
    try {
      const ldif = await run(process.execPath, [leveldapBin, 'make-ldif', '--users', '20', '--scheme', 'SSHA512']);
        await writeFile(`${dir.path}/users.ldif`, ldif.stdout);
      const loaded = await run(process.execPath, [leveldapBin, 'import-ldif', `${dir.path}/users.ldif`, '--store', cluster.url]);
      assert.equal(loaded.code, 0, loaded.stderr);
    } finally {
      await dir.remove();
    }
    for (const name of ['a', 'b', 'c']) {
      nodes.push(await startLeveldap({
        empty: true, args: ['--store', cluster.url, '--node-name', name, '--max-failures', String(MAX_FAILURES), '--lockout-duration', '0'],
      }));
    }
    db = new pg.Client({ connectionString: cluster.url });
    await db.connect();
  });

  after(async () => {
    await db?.end();
    for (const node of nodes) await node.stop();
    nodes = [];
    await cluster?.destroy();
  });

  /** The wrong SSHA512 passwords the node has verified (cn=Monitor, cn=SSHA512,cn=Binds: invalid=N). */
  const invalidVerified = async (node: LeveldapServer): Promise<number> => {
    const found = await ldapTool('ldapsearch', node.url, ['-LLL', '-b', 'cn=SSHA512,cn=Binds,cn=Monitor', '-s', 'base', '(objectClass=*)', 'monitoredInfo'], {
      dn: node.adminDn, password: node.adminPassword,
    });
    return Number(/monitoredInfo: invalid=(\d+)/.exec(found.stdout)?.[1] ?? Number.NaN);
  };

  const lockedOn = async (node: LeveldapServer, dn: string): Promise<boolean> => {
    const found = await ldapTool('ldapsearch', node.url, ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', 'pwdAccountLockedTime'], {
      dn: node.adminDn, password: node.adminPassword,
    });
    return /pwdAccountLockedTime: /.test(found.stdout);
  };

  test('one wrong password on each node in turn locks the account on every node', async () => {
    const dn = userDn(1);
    assert.equal(await bind(nodes[0]!, dn, 'password'), 0, 'the account works first');
    for (const node of nodes) assert.equal(await bind(node, dn, 'wrong-password'), 49);
    for (const node of nodes) assert.ok(await eventually(() => lockedOn(node, dn)), `locked as seen on ${node.url}`);
    for (const node of nodes) assert.equal(await bind(node, dn, 'password'), 49, 'the right password is refused while locked');
  });

  test('the failures that caused a lock do not count again once it ends: unlocked, one wrong password does not lock again (review 2026-12-08)', async () => {
    const dn = userDn(3);
    for (const node of nodes) assert.equal(await bind(node, dn, 'wrong-password'), 49);
    for (const node of nodes) assert.ok(await eventually(() => lockedOn(node, dn)), `locked as seen on ${node.url}`);
    const unlock = await ldapTool('ldapmodify', nodes[0]!.url, [], { dn: nodes[0]!.adminDn, password: nodes[0]!.adminPassword },
      `dn: ${dn}\nchangetype: modify\ndelete: pwdAccountLockedTime\n`);
    assert.equal(unlock.code, 0, unlock.stderr);
    for (const node of nodes) assert.ok(await eventually(async () => !(await lockedOn(node, dn))), `unlocked as seen on ${node.url}`);
    assert.equal(await bind(nodes[1]!, dn, 'wrong-password'), 49);
    assert.equal(await bind(nodes[1]!, dn, 'password'), 0, 'one failure since the lock: the right password binds');
  });

  test(`wrong passwords sent at once to all nodes verify at most ${MAX_FAILURES} x 3 times, and lock the account`, async () => {
    const dn = userDn(2);
    const before = await Promise.all(nodes.map(invalidVerified));
    const answers = await Promise.all(nodes.flatMap((node) => Array.from({ length: 6 }, () => bind(node, dn, 'wrong-password'))));
    assert.deepEqual(answers, Array(18).fill(49));
    // The passwords verified and found wrong (a lock clears the shared failures, so they are counted where they were verified).
    const after = await Promise.all(nodes.map(invalidVerified));
    const verified = after.reduce((sum, count, i) => sum + count - before[i]!, 0);
    assert.ok(verified >= MAX_FAILURES && verified <= MAX_FAILURES * nodes.length, `failures recorded: ${verified}`);
    for (const node of nodes) assert.ok(await eventually(() => lockedOn(node, dn)), `locked as seen on ${node.url}`);
    assert.equal(await bind(nodes[2]!, dn, 'password'), 49);
  });
});
