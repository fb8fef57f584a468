/**
 * The server's limits that are set by flags (docs/limits.md), through real clients: the size limit
 * over a whole paged search (--paged-size-limit); the length and RDN count of a DN
 * (--max-dn-length, --max-dn-rdns), checked before the DN is parsed; connection slots: per client
 * address (--max-connections-per-address), a reserve for the admin (--reserved-connections), a
 * shorter idle timeout for connections not bound to a DN, TCP keepalive; the same limits as keys
 * of the --config file, a flag over the file.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leveldapBin } from '../helpers/paths.js';
import { run } from '../../src/harness/run.js';
import { ldapTool, NOTICE_OF_DISCONNECTION, parseLdifOutput, RawConnection } from '../helpers/ldap-client.js';
import { answer, bindRequest, deleteRequest, extendedRequest, PASSWORD_MODIFY, passwordModifyValue, searchRequest } from '../helpers/ldap-requests.js';

const PEOPLE = 'ou=People,dc=example,dc=com';

async function pagedSearch(server: LeveldapServer, extra: readonly string[] = []): Promise<{ code: number; count: number }> {
  const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-E', 'pr=50/noprompt', ...extra, '-b', PEOPLE, '1.1']);
  return { code: result.code, count: parseLdifOutput(result.stdout).length };
}

describe('leveldap serve: --paged-size-limit', () => {
  let server: LeveldapServer;
  let unlimited: LeveldapServer;
  before(async () => {
    server = await startLeveldap({ users: 300, args: ['--size-limit', '120', '--paged-size-limit', '200'] });
    unlimited = await startLeveldap({ users: 300, args: ['--size-limit', '120', '--paged-size-limit', '0'] });
  });
  after(async () => { await Promise.all([server.stop(), unlimited.stop()]); });

  test('a non-admin paged search stops at --paged-size-limit over all its pages (sizeLimitExceeded, 4)', async () => {
    assert.deepEqual(await pagedSearch(server), { code: 4, count: 200 });
  });

  test('the client\'s own size limit still applies when it is lower', async () => {
    assert.deepEqual(await pagedSearch(server, ['-z', '70']), { code: 4, count: 70 });
  });

  test('--paged-size-limit 0: no limit over the pages (each page still at most --size-limit)', async () => {
    assert.deepEqual(await pagedSearch(unlimited), { code: 0, count: 301 });
  });

  test('a search without paging keeps --size-limit', async () => {
    const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', PEOPLE, '1.1']);
    assert.equal(result.code, 4);
    assert.equal(parseLdifOutput(result.stdout).length, 120);
  });
});

describe('leveldap serve: limits as --config keys', () => {
  let dir: string;
  let fromFile: LeveldapServer;
  let flagOverFile: LeveldapServer;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leveldap-limit-config-'));
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ sizeLimit: 25, maxFailures: 5 }));
    fromFile = await startLeveldap({ users: 60, args: ['--config', config] });
    flagOverFile = await startLeveldap({ users: 60, args: ['--config', config, '--size-limit', '40'] });
  });
  after(async () => {
    await Promise.all([fromFile.stop(), flagOverFile.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  test('"sizeLimit" in the file caps a non-admin search (sizeLimitExceeded, 4); --size-limit overrides it', async () => {
    const capped = await ldapTool('ldapsearch', fromFile.url, ['-LLL', '-b', PEOPLE, '1.1']);
    assert.equal(capped.code, 4);
    assert.equal(parseLdifOutput(capped.stdout).length, 25);
    const flagged = await ldapTool('ldapsearch', flagOverFile.url, ['-LLL', '-b', PEOPLE, '1.1']);
    assert.equal(flagged.code, 4);
    assert.equal(parseLdifOutput(flagged.stdout).length, 40);
  });

  test('a limit key with a wrong value stops serve with a usage error (exit status 2) naming the key', async () => {
    const config = join(dir, 'bad.json');
    await writeFile(config, JSON.stringify({ maxRefintGroups: -1 }));
    const result = await run(process.execPath, [leveldapBin, 'serve', '--data', join(dir, 'db'), '--port', '0', '--config', config]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /"maxRefintGroups" -1: a whole number from 0/);
  });
});

/** A DN of `count` RDNs below the base (each `ou=uN`). */
const deepDn = (count: number) => [...Array.from({ length: count - 3 }, (_, i) => `ou=u${i}`), 'ou=People', 'dc=example', 'dc=com'].join(',');

describe('leveldap serve: DN length and depth (--max-dn-length, --max-dn-rdns)', () => {
  let server: LeveldapServer;
  let deeper: LeveldapServer;
  before(async () => {
    server = await startLeveldap({ users: 10 });
    deeper = await startLeveldap({ users: 10, args: ['--max-dn-rdns', '100', '--max-dn-length', '20000'] });
  });
  after(async () => { await Promise.all([server.stop(), deeper.stop()]); });

  async function codeOf(target: LeveldapServer, request: (id: number) => Buffer): Promise<{ code?: number; message?: string; millis: number }> {
    const connection = await RawConnection.open(target.port);
    try {
      const started = performance.now();
      connection.write(request(1));
      const response = await answer(connection, 1, 60_000);
      return { code: response?.code, message: response?.message, millis: performance.now() - started };
    } finally {
      connection.destroy();
    }
  }

  test('a 20,000-RDN search base is refused at once (34) and the server goes on answering others', async () => {
    const other = await RawConnection.open(server.port);
    try {
      const refused = codeOf(server, (id) => searchRequest(id, deepDn(20_000)));
      other.write(searchRequest(7, '', { scope: 'base' }));
      const rootDse = await answer(other, 7, 60_000);
      const result = await refused;
      assert.equal(result.code, 34, result.message);
      assert.match(result.message ?? '', /RDNs|long/);
      assert.equal(rootDse?.code, 0);
      // Before the cap the search took 10 s and more of event-loop time (matchedDN over every ancestor).
      assert.ok(result.millis < 2000, `answered in ${result.millis.toFixed(0)} ms`);
    } finally {
      other.destroy();
    }
  });

  test('a bind, a delete and a search with too many RDNs answer invalidDNSyntax (34)', async () => {
    assert.equal((await codeOf(server, (id) => bindRequest(id, deepDn(5000), 'password'))).code, 34);
    assert.equal((await codeOf(server, (id) => deleteRequest(id, deepDn(65)))).code, 34);
    assert.equal((await codeOf(server, (id) => searchRequest(id, deepDn(65)))).code, 34);
    const admin = await RawConnection.open(server.port);
    try {
      admin.write(bindRequest(1, server.adminDn, server.adminPassword));
      admin.write(extendedRequest(2, PASSWORD_MODIFY, passwordModifyValue({ userIdentity: `dn:${deepDn(65)}`, newPassword: 'a-new-password' })));
      assert.equal((await answer(admin, 2))?.code, 34, 'Password Modify\'s userIdentity, from the admin');
    } finally {
      admin.destroy();
    }
  });

  test('up to 64 RDNs (the default) a DN is parsed: an absent entry is noSuchObject (32)', async () => {
    assert.equal((await codeOf(server, (id) => searchRequest(id, deepDn(64)))).code, 32);
  });

  test('a DN longer than 8,192 bytes (the default) answers 34, however few its RDNs', async () => {
    const long = `cn=${'x'.repeat(8200)},ou=People,dc=example,dc=com`;
    const result = await codeOf(server, (id) => searchRequest(id, long));
    assert.equal(result.code, 34);
    assert.match(result.message ?? '', /8192/);
  });

  test('the flags raise the limits', async () => {
    assert.equal((await codeOf(deeper, (id) => searchRequest(id, deepDn(65)))).code, 32);
    assert.equal((await codeOf(deeper, (id) => searchRequest(id, deepDn(101)))).code, 34);
  });

  test('ldapsearch sees the refusal as "Invalid DN syntax"', async () => {
    const result = await ldapTool('ldapsearch', server.url, ['-b', deepDn(100), '1.1']);
    assert.equal(result.code, 34, result.stderr);
    assert.match(result.stdout, /result: 34 Invalid DN syntax/);
  });
});

const ROOT_DSE = (id: number) => searchRequest(id, '', { scope: 'base' });
const USER = 'uid=user.1,ou=People,dc=example,dc=com';

/** Opens a connection and has it answer a root DSE search: it was let in and is served. */
async function served(port: number, localAddress?: string): Promise<RawConnection> {
  const connection = await RawConnection.open(port, 5000, localAddress);
  connection.write(ROOT_DSE(1));
  const response = await answer(connection, 1, 10_000);
  assert.equal(response?.code, 0, `root DSE answered (closed: ${connection.closed})`);
  return connection;
}

/** The notice of disconnection the server sent before closing, if any. */
async function noticeOnClose(connection: RawConnection): Promise<number | undefined> {
  assert.ok(await connection.waitClosed(15_000), 'the server closed the connection');
  const notice = connection.responses.find((response) => response.messageId === 0 && response.responseName === NOTICE_OF_DISCONNECTION);
  return notice?.code;
}

describe('leveldap serve: connection slots', () => {
  let server: LeveldapServer;
  const open: RawConnection[] = [];
  const keep = (connection: RawConnection) => { open.push(connection); return connection; };
  before(async () => {
    server = await startLeveldap({
      users: 10, args: ['--max-connections', '12', '--reserved-connections', '2', '--max-connections-per-address', '6', '--anonymous-idle-timeout', '60'],
    });
  });
  after(async () => {
    for (const connection of open) connection.destroy();
    await server.stop();
  });
  const closeAll = async () => {
    for (const connection of open.splice(0)) connection.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the server sees the closes
  };

  test('one address holds at most --max-connections-per-address; the next is told busy (51); another address is served', async () => {
    for (let i = 0; i < 6; i++) keep(await served(server.port));
    const refused = keep(await RawConnection.open(server.port));
    assert.equal(await noticeOnClose(refused), 51);
    keep(await served(server.port, '127.0.0.2'));
    open[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    keep(await served(server.port));
    await closeAll();
  });

  test('idle anonymous clients filling --max-connections cannot lock the admin out: the reserve lets the admin in, nobody else', async () => {
    const addresses = ['127.0.0.3', '127.0.0.4'];
    for (let i = 0; i < 10; i++) keep(await served(server.port, addresses[i % 2]));
    const anonymous = keep(await RawConnection.open(server.port, 5000, '127.0.0.5'));
    anonymous.write(ROOT_DSE(1));
    assert.equal(await noticeOnClose(anonymous), 51, 'an anonymous search on the reserve');
    const user = keep(await RawConnection.open(server.port, 5000, '127.0.0.5'));
    user.write(bindRequest(1, USER, 'password'));
    assert.equal((await answer(user, 1))?.code, 0, 'the bind itself is answered');
    assert.equal(await noticeOnClose(user), 51, 'then a user bound on the reserve is closed');
    const admin = keep(await RawConnection.open(server.port, 5000, '127.0.0.5'));
    admin.write(bindRequest(1, server.adminDn, server.adminPassword));
    assert.equal((await answer(admin, 1))?.code, 0);
    admin.write(ROOT_DSE(2));
    assert.equal((await answer(admin, 2))?.code, 0, 'the admin is served');
    const search = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', USER, '-s', 'base', '1.1'], { dn: server.adminDn, password: server.adminPassword });
    assert.equal(search.code, 0, `a second admin client (ldapsearch) gets the last place: ${search.stderr}`);
    await closeAll();
  });
});

describe('leveldap serve: idle connections not bound to a DN close sooner; TCP keepalive', () => {
  let server: LeveldapServer;
  before(async () => { server = await startLeveldap({ users: 10, args: ['--anonymous-idle-timeout', '1', '--idle-timeout', '30'] }); });
  after(async () => { await server.stop(); });

  test('an anonymous connection is closed after --anonymous-idle-timeout; a bound one stays', async () => {
    const anonymous = await served(server.port);
    const bound = await RawConnection.open(server.port);
    try {
      bound.write(bindRequest(1, USER, 'password'));
      assert.equal((await answer(bound, 1))?.code, 0);
      const started = performance.now();
      assert.equal(await noticeOnClose(anonymous), 52);
      assert.ok(performance.now() - started < 5000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(bound.closed, false, 'the bound connection is still open');
    } finally {
      anonymous.destroy();
      bound.destroy();
    }
  });

  test('bytes that make no message do not keep a connection alive: a bind trickled a byte every 300 ms is closed', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      const frame = bindRequest(1, USER, 'password');
      const started = performance.now();
      for (let i = 0; i < frame.length - 1 && !connection.closed; i++) {
        connection.write(frame.subarray(i, i + 1));
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      assert.equal(await noticeOnClose(connection), 52);
      assert.ok(performance.now() - started < 5000, `closed after ${(performance.now() - started).toFixed(0)} ms`);
    } finally {
      connection.destroy();
    }
  });

  test('accepted sockets have TCP keepalive on (ss shows a keepalive timer)', { skip: spawnSync('ss', ['-V']).status === 0 ? false : 'ss missing (iproute2)' }, async () => {
    const connection = await served(server.port);
    try {
      const listing = spawnSync('ss', ['-tnoH', 'state', 'established', `( sport = :${server.port} )`], { encoding: 'utf8' });
      assert.match(listing.stdout, /timer:\(keepalive/, listing.stdout);
    } finally {
      connection.destroy();
    }
  });
});
