/**
 * The server's limits that are set by flags (docs/limits.md), through real clients: the size limit
 * over a whole paged search (--paged-size-limit); the length and RDN count of a DN
 * (--max-dn-length, --max-dn-rdns), checked before the DN is parsed.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, RawConnection } from '../helpers/ldap-client.js';
import { answer, bindRequest, deleteRequest, searchRequest } from '../helpers/ldap-requests.js';

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
