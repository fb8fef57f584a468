/**
 * The server driven by an LDAP client library (ldapjs's client), for what the command-line
 * tools do not show directly: mixed-case attribute requests, paging driven by the client,
 * compare and Who Am I results as values, and error classes.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';

const require = createRequire(import.meta.url);
// ldapjs ships no types; the few calls used here are typed loosely.
const ldap = require('ldapjs') as any;

interface SearchEntry { pojo: { objectName: string; attributes: { type: string; values: string[] }[] } }

function promised<T>(call: (callback: (error: Error | null, result: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => call((error, result) => (error ? reject(error) : resolve(result))));
}

function searchAll(client: unknown, base: string, options: object): Promise<SearchEntry[]> {
  return new Promise((resolve, reject) => {
    (client as { search: (b: string, o: object, cb: (e: Error | null, r: NodeJS.EventEmitter) => void) => void }).search(base, options, (error, response) => {
      if (error) return reject(error);
      const entries: SearchEntry[] = [];
      response.on('searchEntry', (entry: SearchEntry) => entries.push(entry));
      response.on('error', reject);
      response.on('end', () => resolve(entries));
    });
  });
}

const USER = 'uid=user.3,ou=People,dc=example,dc=com';

describe('leveldap serve with an LDAP client library (ldapjs client)', () => {
  let server: LeveldapServer;
  let client: any;

  before(async () => {
    // Paged searches of users stop at --size-limit over all pages unless this is lifted.
    server = await startLeveldap({ users: 1000, args: ['--paged-size-limit', '0'] });
    client = ldap.createClient({ url: server.url });
    client.on('error', () => {});
  });
  after(async () => {
    await new Promise<void>((resolve) => client.unbind(() => resolve()));
    await server.stop();
  });

  test('bind as a user; a wrong password is an InvalidCredentialsError (49)', async () => {
    await assert.rejects(promised((callback) => client.bind(USER, 'wrong', callback)), (error: { code?: number }) => error.code === 49);
    await promised((callback) => client.bind(USER, 'password', callback));
  });

  test('attributes requested in mixed case come back (ldapjs\'s own server drops them)', async () => {
    const [entry] = await searchAll(client, USER, { scope: 'base', attributes: ['CN', 'entryUUID', 'MAIL'] });
    const names = entry!.pojo.attributes.map((attribute) => attribute.type.toLowerCase()).sort();
    assert.deepEqual(names, ['cn', 'entryuuid', 'mail']);
  });

  test('a paged search driven by the client returns every entry', async () => {
    const entries = await searchAll(client, 'ou=People,dc=example,dc=com', { scope: 'one', attributes: ['1.1'], paged: { pageSize: 150 } });
    assert.equal(entries.length, 1000);
    assert.equal(new Set(entries.map((entry) => entry.pojo.objectName)).size, 1000, 'no entry twice');
  });

  test('compare answers true and false; Who Am I names the bound user', async () => {
    const [entry] = await searchAll(client, USER, { scope: 'base', attributes: ['cn'] });
    const cn = entry!.pojo.attributes[0]!.values[0]!;
    assert.equal(await promised((callback) => client.compare(USER, 'cn', cn.toUpperCase(), callback)), true);
    assert.equal(await promised((callback) => client.compare(USER, 'cn', `${cn}x`, callback)), false);
    const identity = await promised<string>((callback) => client.exop('1.3.6.1.4.1.4203.1.11.3', (error: Error | null, value: string) => callback(error, value)));
    assert.equal(identity, `dn:${USER}`);
  });
});
