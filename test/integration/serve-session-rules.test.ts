/**
 * Rules a client cannot bend (found by review): binds run alone and cannot be abandoned, a bind
 * resets the session even when refused, message IDs cannot be reused, filters cannot probe a
 * userPassword the client may not read, and the client's size limit holds across pages. Abandon
 * and Unbind act at once even when they arrive behind requests that wait (reading went on only
 * once nothing waited, so they took effect after what they were meant to stop).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createRegistry } from '../../src/password/index.js';
import { encodePagedResults } from '../../src/protocol/index.js';
import * as requests from '../helpers/ldap-requests.js';
import { accountLdif, startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, NOTICE_OF_DISCONNECTION, Op, pagedCookie, RawConnection, parseLdifOutput } from '../helpers/ldap-client.js';

interface Encodable { toBer(): { buffer: Buffer } }
interface Messages {
  BindRequest: new (options: { messageId: number; name?: string; credentials?: string; controls?: unknown[] }) => Encodable;
  SearchRequest: new (options: { messageId: number; baseObject: string; scope: 'base' | 'one' | 'sub'; filter: string; attributes?: string[]; controls?: unknown[] }) => Encodable;
  AbandonRequest: new (options: { messageId: number; abandonId: number }) => Encodable;
  ExtensionRequest: new (options: { messageId: number; requestName: string }) => Encodable;
}
interface Controls {
  Control: new (options: { type: string; criticality: boolean }) => unknown;
  PagedResultsControl: new (options: { value: { size: number; cookie?: Buffer } }) => unknown;
}
const require = createRequire(import.meta.url);
const messages = require('@ldapjs/messages') as Messages;
const controls = require('@ldapjs/controls') as Controls;

const USER = 'uid=user.1,ou=People,dc=example,dc=com';
const bind = (messageId: number, name: string, credentials: string, critical?: string) => new messages.BindRequest({
  messageId, name, credentials, ...(critical && { controls: [new controls.Control({ type: critical, criticality: true })] }),
}).toBer().buffer;
const whoAmI = (messageId: number) => new messages.ExtensionRequest({ messageId, requestName: '1.3.6.1.4.1.4203.1.11.3' }).toBer().buffer;
const search = (messageId: number) => new messages.SearchRequest({ messageId, baseObject: USER, scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] }).toBer().buffer;

describe('leveldap serve: session rules', () => {
  let server: LeveldapServer;
  before(async () => { server = await startLeveldap({ users: 200 }); });
  after(async () => { await server.stop(); });

  async function exchange(bytes: Buffer[], until: (connection: RawConnection) => boolean): Promise<RawConnection> {
    const connection = await RawConnection.open(server.port);
    connection.write(Buffer.concat(bytes));
    assert.ok(await connection.until(() => until(connection), 10_000), 'answers arrive');
    connection.socket.destroy();
    return connection;
  }
  const identity = (connection: RawConnection, id: number) => connection.responses.find((r) => r.messageId === id)?.responseValue;

  test('pipelined binds run one after the other: a failed last bind leaves the connection anonymous', async () => {
    const connection = await exchange([bind(1, server.adminDn, server.adminPassword), bind(2, USER, 'wrong'), whoAmI(3)],
      (c) => c.responses.some((r) => r.messageId === 3));
    assert.deepEqual(connection.responses.map((r) => [r.messageId, r.code]), [[1, 0], [2, 49], [3, 0]]);
    assert.equal(identity(connection, 3), '');
  });

  test('a bind cannot be abandoned: it is answered, and its outcome stands', async () => {
    const connection = await exchange([bind(1, server.adminDn, server.adminPassword), new messages.AbandonRequest({ messageId: 2, abandonId: 1 }).toBer().buffer, whoAmI(3)],
      (c) => c.responses.some((r) => r.messageId === 3));
    assert.equal(connection.responses.find((r) => r.messageId === 1)?.code, 0);
    assert.equal(identity(connection, 3), `dn:${server.adminDn}`);
  });

  test('a bind refused for an unknown critical control still resets the session to anonymous', async () => {
    const connection = await exchange([bind(1, server.adminDn, server.adminPassword), bind(2, 'uid=nobody,dc=example,dc=com', 'x', '1.2.3.4'), whoAmI(3)],
      (c) => c.responses.some((r) => r.messageId === 3));
    assert.equal(connection.responses.find((r) => r.messageId === 2)?.code, 12);
    assert.equal(identity(connection, 3), '');
  });

  test('a message ID already in use ends the connection with a notice of disconnection', async () => {
    const connection = await exchange([search(5), search(5)], (c) => c.closed);
    assert.ok(connection.responses.some((r) => r.op === Op.extendedResponse && r.responseName === NOTICE_OF_DISCONNECTION));
  });

  test('filters cannot test userPassword for clients that may not read it; the admin can', async () => {
    const probe = ['-LLL', '-b', 'ou=People,dc=example,dc=com', '(&(uid=user.1)(userPassword={SSHA512}*))', '1.1'];
    const anonymous = await ldapTool('ldapsearch', server.url, probe);
    assert.equal(parseLdifOutput(anonymous.stdout).length, 0);
    const other = await ldapTool('ldapsearch', server.url, probe, { dn: 'uid=user.2,ou=People,dc=example,dc=com', password: 'password' });
    assert.equal(parseLdifOutput(other.stdout).length, 0);
    const admin = await ldapTool('ldapsearch', server.url, probe, { dn: server.adminDn, passwordFile: server.adminPasswordFile });
    assert.equal(parseLdifOutput(admin.stdout).length, 1);
  });

  test('a paged search opened by the admin cannot be continued after a bind as someone else', async () => {
    const paged = (messageId: number, cookie?: Buffer) => new messages.SearchRequest({
      messageId, baseObject: 'ou=People,dc=example,dc=com', scope: 'sub', filter: '(objectClass=*)', attributes: ['userPassword'],
      controls: [new controls.PagedResultsControl({ value: { size: 1, ...(cookie && { cookie }) } })],
    }).toBer().buffer;
    const connection = await RawConnection.open(server.port);
    try {
      connection.write(bind(1, server.adminDn, server.adminPassword));
      connection.write(paged(2));
      assert.ok(await connection.until(() => connection.responses.some((r) => r.messageId === 2 && r.code !== undefined), 10_000));
      const cookie = pagedCookie(connection.responses.find((r) => r.messageId === 2 && r.code !== undefined)?.controls);
      assert.ok(cookie && cookie.length > 0, 'page 1 left a cookie');
      connection.write(bind(3, '', ''));
      connection.write(paged(4, cookie));
      assert.ok(await connection.until(() => connection.responses.some((r) => r.messageId === 4 && r.code !== undefined), 10_000));
      const refused = connection.responses.find((r) => r.messageId === 4 && r.code !== undefined);
      assert.equal(refused?.code, 53, refused?.message);
      assert.equal(connection.responses.filter((r) => r.messageId === 4 && r.op === Op.searchEntry).length, 0, 'no entry of the admin\'s search is sent');
    } finally {
      connection.destroy();
    }
  });

  test('as OpenLDAP: a Who Am I carrying a value, and a search with two paged results controls, answer protocolError', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      const withValue = await requests.exchange(connection, 1, requests.extendedRequest(1, '1.3.6.1.4.1.4203.1.11.3', Buffer.from('x')));
      assert.deepEqual([withValue.code, withValue.message], [2, 'no request data expected']);
      const paged = { type: '1.2.840.113556.1.4.319', value: encodePagedResults(5, Buffer.alloc(0)) };
      const twice = await requests.exchange(connection, 2, requests.withControls(requests.searchRequest(2, 'ou=People,dc=example,dc=com'), [paged, paged]));
      assert.equal(twice.code, 2, twice.message);
      assert.equal((await requests.exchange(connection, 3, whoAmI(3))).code, 0, 'the connection goes on');
    } finally {
      connection.destroy();
    }
  });

  test('writes to the root DSE and cn=Subschema are refused as OpenLDAP refuses them; an add without attributes is a protocolError', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      assert.equal((await requests.exchange(connection, 1, bind(1, server.adminDn, server.adminPassword))).code, 0);
      const answers: [number, string | undefined][] = [];
      const frames = [
        requests.addRequest(2, '', [['objectClass', ['top']]]),
        requests.addRequest(3, 'cn=Subschema', [['objectClass', ['subschema']]]),
        requests.addRequest(4, 'uid=nothing,ou=People,dc=example,dc=com', []),
        requests.modifyRequest(5, '', [{ op: 'replace', attribute: 'description', values: ['x'] }]),
        requests.modifyRequest(6, 'cn=Subschema', [{ op: 'replace', attribute: 'description', values: ['x'] }]),
        requests.deleteRequest(7, ''),
        requests.deleteRequest(8, 'cn=Subschema'),
        requests.modifyDnRequest(9, 'cn=Subschema', 'cn=Other', true),
      ];
      for (const [i, frame] of frames.entries()) {
        const answer = await requests.exchange(connection, i + 2, frame);
        answers.push([answer.code!, answer.message]);
      }
      assert.deepEqual(answers, [
        [68, 'root DSE already exists'], [68, 'subschema subentry already exists'], [2, 'no attributes provided'],
        [53, 'modify upon the root DSE not supported'], [53, 'modification of subschema subentry not supported'],
        [53, 'cannot delete the root DSE'], [53, 'cannot delete the subschema subentry'], [53, 'cannot rename subschema subentry'],
      ]);
    } finally {
      connection.destroy();
    }
  });

  test('the client\'s size limit holds across pages', async () => {
    const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-z', '3', '-E', 'pr=2/noprompt', '-b', 'ou=People,dc=example,dc=com', '(uid=user.1*)', '1.1']);
    assert.equal(result.code, 4);
    assert.equal(parseLdifOutput(result.stdout).length, 3);
  });
});

describe('leveldap serve: Abandon and Unbind behind waiting requests', () => {
  let server: LeveldapServer;
  const SLOW = 'uid=slow,ou=People,dc=example,dc=com';
  before(async () => {
    // A bind that takes a while (2,000,000 iterations: about 0.3 s here): the requests sent behind it wait.
    const stored = await createRegistry().encode('PBKDF2-SHA256', Buffer.from('slow-secret'), { iterations: 2_000_000 });
    server = await startLeveldap({ users: 5, ldif: accountLdif('slow', stored) });
  });
  after(async () => { await server?.stop(); });

  /** A connection that sent the slow bind (1) and a search (2), then, 50 ms later, `later`. */
  async function behindSlowBind(later: Buffer[]): Promise<RawConnection> {
    const connection = await RawConnection.open(server.port);
    connection.write(Buffer.concat([bind(1, SLOW, 'slow-secret'), search(2)]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection.write(Buffer.concat(later));
    return connection;
  }

  test('an Abandon of a request waiting behind a bind removes it: never answered', async () => {
    const connection = await behindSlowBind([new messages.AbandonRequest({ messageId: 3, abandonId: 2 }).toBer().buffer, whoAmI(4)]);
    try {
      assert.ok(await connection.until(() => connection.responses.some((r) => r.messageId === 4), 20_000), 'the WhoAmI is answered');
      assert.equal(connection.responses.find((r) => r.messageId === 1)?.code, 0, 'the bind');
      assert.deepEqual(connection.responses.filter((r) => r.messageId === 2), [], 'the abandoned search');
    } finally {
      connection.destroy();
    }
  });

  test('an Unbind behind waiting requests closes the connection at once: the bind in progress is not answered', async () => {
    const connection = await behindSlowBind([Buffer.from([0x30, 0x05, 0x02, 0x01, 0x03, 0x42, 0x00])]);
    try {
      assert.ok(await connection.until(() => connection.closed, 20_000), 'closed');
      assert.deepEqual(connection.responses.map((r) => r.messageId), [], 'nothing answered after the Unbind');
    } finally {
      connection.destroy();
    }
  });
});
