/**
 * The server's limits that are set by flags (docs/limits.md), through real clients: the size limit
 * over a whole paged search (--paged-size-limit).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput } from '../helpers/ldap-client.js';

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
