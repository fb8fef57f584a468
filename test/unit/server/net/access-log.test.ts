/**
 * The access log's line for one operation (src/server/net/access-log.ts): a search's requested
 * attributes and the controls sent (values never), long lists cut with a count, a message only
 * with a non-zero result, a bind's scheme and cache, wtime and etime in ms; userPassword masked
 * in filters; nothing at all when the level is above info.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { decodeRequest, type Request } from '../../../../src/protocol/index.js';
import { logOperation } from '../../../../src/server/net/access-log.js';
import { Session } from '../../../../src/server/net/session.js';
import type { Reply } from '../../../../src/server/context.js';
import { bindRequest, searchRequest, withControls } from '../../../helpers/ldap-requests.js';

/** logOperation's line for `request` and `reply`, at `level` (undefined: nothing was logged). */
function lineOf(request: Request, reply: Reply, level = 'info'): Record<string, unknown> | undefined {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } });
  const log = pino({ level }, sink);
  logOperation(log, new Session(7, '127.0.0.1:1', 1), request, reply, { waited: 1.23456, ran: 0.5 });
  log.flush();
  return lines[0] === undefined ? undefined : JSON.parse(lines[0]) as Record<string, unknown>;
}

const PEOPLE = 'ou=People,dc=example,dc=com';

describe('logOperation', () => {
  test('a search: attributes, controls without their values, entries, times; no message with success', () => {
    const frame = withControls(searchRequest(3, PEOPLE, { attributes: ['cn', 'mail'] }), [
      { type: '1.2.840.113556.1.4.319', value: Buffer.from('a cookie') },
      { type: '2.16.840.1.113730.3.4.2', critical: true },
    ]);
    const line = lineOf(decodeRequest(frame), { code: 0, message: 'ignored', entries: 4 })!;
    assert.equal(line['conn'], 7);
    assert.equal(line['msgid'], 3);
    assert.deepEqual(line['attrs'], ['cn', 'mail']);
    assert.deepEqual(line['controls'], [{ oid: '1.2.840.113556.1.4.319', critical: false }, { oid: '2.16.840.1.113730.3.4.2', critical: true }]);
    assert.equal(line['entries'], 4);
    assert.equal(line['message'], undefined);
    assert.equal(line['wtime'], 1.235);
    assert.equal(line['etime'], 0.5);
    assert.ok(!JSON.stringify(line).includes('cookie'), 'control values are not logged');
  });

  test('long attribute and control lists are cut with a count; a search without entries says 0; a message comes with a non-zero code', () => {
    const attributes = Array.from({ length: 70 }, (_, i) => `attr${i}`);
    const line = lineOf(decodeRequest(searchRequest(4, PEOPLE, { attributes })), { code: 32, message: 'no such entry' })!;
    assert.equal((line['attrs'] as string[]).length, 65);
    assert.equal((line['attrs'] as string[]).at(-1), '+6 more');
    assert.equal(line['entries'], 0);
    assert.equal(line['message'], 'no such entry');
    assert.equal(line['controls'], undefined, 'no controls sent: no field');
    const many = withControls(searchRequest(5, PEOPLE), Array.from({ length: 20 }, (_, i) => ({ type: `1.2.3.${i}` })));
    const controls = lineOf(decodeRequest(many), { code: 0 })!['controls'] as unknown[];
    assert.equal(controls.length, 17);
    assert.deepEqual([controls[15], controls[16]], [{ oid: '1.2.3.15', critical: false }, '+4 more']);
  });

  test('a userPassword filter value is masked', () => {
    const frame = searchRequest(5, PEOPLE, { filter: { equality: ['userPassword', 'Secret-9'] } });
    const line = lineOf(decodeRequest(frame), { code: 0, entries: 0 })!;
    assert.equal(line['filter'], '(userPassword=\\2a\\2a\\2a)', '*** in RFC 4515 escapes');
  });

  test('a long filter is cut after 512 characters, and masked in the part shown; a filter the decoder cut ends in ... too', () => {
    const terms = Array.from({ length: 2000 }, (_, i) => ({ equality: [i % 2 ? 'cn' : 'userPassword', `Secret-${i}`] as const }));
    const long = lineOf(decodeRequest(searchRequest(6, PEOPLE, { filter: { or: terms } })), { code: 0 })!['filter'] as string;
    assert.equal(long.length, 515);
    assert.ok(long.endsWith('...') && long.startsWith('(|(userPassword=\\2a\\2a\\2a)(cn=Secret-1)'), long);
    assert.ok(!long.includes('userPassword=Secret'), 'no password shown');
    const cut = decodeRequest(searchRequest(7, PEOPLE, { filter: { or: terms.slice(0, 5) } }), { keepFilterTerms: 3 });
    assert.equal(lineOf(cut, { code: 11 })!['filter'], '(|(userPassword=\\2a\\2a\\2a)(cn=Secret-1))...');
  });

  test('a bind: the scheme and cache when it succeeded, never the password', () => {
    const request = decodeRequest(bindRequest(1, `uid=user.1,${PEOPLE}`, 'Secret-9'));
    const line = lineOf(request, { code: 0, scheme: 'PBKDF2-SHA256', cached: true })!;
    assert.deepEqual([line['dn'], line['scheme'], line['cached'], line['entries']], [`uid=user.1,${PEOPLE}`, 'PBKDF2-SHA256', true, undefined]);
    assert.ok(!JSON.stringify(line).includes('Secret-9'));
    const failed = lineOf(request, { code: 49, message: '' })!;
    assert.deepEqual([failed['scheme'], failed['cached'], failed['message']], [undefined, undefined, undefined]);
  });

  test('nothing is logged above info', () => {
    assert.equal(lineOf(decodeRequest(searchRequest(6, PEOPLE)), { code: 0 }, 'warn'), undefined);
  });
});
