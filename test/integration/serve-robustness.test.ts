/**
 * `leveldap serve` against hostile or broken clients, over raw TCP (node:net), all on one server
 * process: garbage bytes, truncated frames, single-byte mutations of a valid request (seeded),
 * 5,000 pipelined requests in one write, a 2 GiB length header followed by tens of MiB, a
 * 10,000-deep filter; then an idle timeout on a second server. After each, and at the end, the
 * server must still answer (raw bind, then ldapwhoami) and still be running.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, serverMemory, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, NOTICE_OF_DISCONNECTION, Op, RawConnection, type Response } from '../helpers/ldap-client.js';
import { SeededRandom } from '../../src/ldif/random.js';
import { exchange, searchRequest as rawSearch } from '../helpers/ldap-requests.js';

interface Encodable {
  toBer(): { buffer: Buffer };
}
interface Messages {
  BindRequest: new (options: { messageId: number; name?: string; credentials?: string }) => Encodable;
  SearchRequest: new (options: {
    messageId: number; baseObject: string; scope: 'base' | 'one' | 'sub'; filter: string; attributes?: string[];
  }) => Encodable;
  AbandonRequest: new (options: { messageId: number; abandonId: number }) => Encodable;
  ExtensionRequest: new (options: { messageId: number; requestName: string }) => Encodable;
}
const require = createRequire(import.meta.url);
const messages = require('@ldapjs/messages') as Messages;

const PEOPLE = 'ou=People,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
const WHO_AM_I = '1.3.6.1.4.1.4203.1.11.3';
/** How long a connection may take to be answered or closed before it counts as hung. */
const CONNECTION_TIMEOUT_MS = 3000;

const bindRequest = (messageId: number, name = '', credentials = '') => new messages.BindRequest({ messageId, name, credentials }).toBer().buffer;
const searchRequest = (messageId: number, base = userDn(1), filter = '(objectClass=*)', scope: 'base' | 'one' | 'sub' = 'base') =>
  new messages.SearchRequest({ messageId, baseObject: base, scope, filter, attributes: ['1.1'] }).toBer().buffer;
const abandonRequest = (messageId: number, abandonId: number) => new messages.AbandonRequest({ messageId, abandonId }).toBer().buffer;
const whoAmIRequest = (messageId: number) => new messages.ExtensionRequest({ messageId, requestName: WHO_AM_I }).toBer().buffer;

/** A BER TLV (definite length, long form as needed). */
function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), berLength(content.length), content]);
}

function berLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** `depth` constructed filters of `tag` (0xa0 and, 0xa2 not) around (objectClass=*), built inside out without quadratic copying. */
function nestedFilter(tag: number, depth: number): Buffer {
  const inner = tlv(0x87, Buffer.from('objectClass'));
  const headers: Buffer[] = [];
  let length = inner.length;
  for (let i = 0; i < depth; i++) {
    const header = Buffer.concat([Buffer.from([tag]), berLength(length)]);
    headers.push(header);
    length += header.length;
  }
  return Buffer.concat([...headers.reverse(), inner]);
}

/** A SearchRequest LDAPMessage with a filter given as BER. */
function searchWithFilter(messageId: number, filter: Buffer): Buffer {
  const body = Buffer.concat([
    tlv(0x04, Buffer.from(PEOPLE)), tlv(0x0a, Buffer.from([2])), tlv(0x0a, Buffer.from([0])),
    tlv(0x02, Buffer.from([0])), tlv(0x02, Buffer.from([0])), tlv(0x01, Buffer.from([0])),
    filter, tlv(0x30, tlv(0x04, Buffer.from('1.1'))),
  ]);
  return tlv(0x30, Buffer.concat([tlv(0x02, Buffer.from([messageId])), tlv(0x63, body)]));
}

/** A seeded generator (the project's), so a failure can be replayed: a number in [0, 1). */
function prng(seed: number): () => number {
  const random = new SeededRandom(String(seed));
  return () => random.next() / 0x1_0000_0000;
}

/** The total size an LDAPMessage header at the start of `bytes` declares, or undefined if it is not one. */
function declaredSize(bytes: Buffer): number | undefined {
  if (bytes.length < 2 || bytes[0] !== 0x30) return undefined;
  const first = bytes[1]!;
  if (first < 0x80) return 2 + first;
  const count = first & 0x7f;
  if (count === 0 || count > 4 || bytes.length < 2 + count) return undefined;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[2 + i]!;
  return 2 + count + length;
}

/** Runs `jobs` with at most `width` at once. */
async function pool<T>(jobs: readonly (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return results;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whatever the server sent before closing must be LDAP, and unsolicited only as a notice of disconnection. */
function assertOnlyNotice(connection: RawConnection, what: string, code?: number): void {
  assert.equal(connection.garbled, undefined, `${what}: the server sent something that is not LDAP: ${connection.garbled}`);
  for (const response of connection.responses) {
    assert.equal(response.messageId, 0, `${what}: unexpected response ${JSON.stringify(response)}`);
    assert.equal(response.op, Op.extendedResponse, what);
    assert.equal(response.responseName, NOTICE_OF_DISCONNECTION, what);
    if (code !== undefined) assert.equal(response.code, code, `${what}: notice of disconnection code`);
  }
}

const skip = findProgram('ldapwhoami') === undefined ? 'ldapwhoami missing: apt-get install ldap-utils' : false;

describe('leveldap serve: robustness over raw TCP', { skip }, () => {
  let server: LeveldapServer;

  before(async () => {
    server = await startLeveldap({ users: 100 });
  });

  after(async () => {
    await server?.stop();
  });

  /** A fresh connection binds as a user and searches: the server still serves. */
  async function assertServing(what: string): Promise<void> {
    assert.equal(server.process.exitCode, null, `${what}: the server exited (stderr: ${server.stderr()})`);
    assert.equal(server.process.signalCode, null, `${what}: the server was killed`);
    const connection = await RawConnection.open(server.port);
    try {
      connection.write(Buffer.concat([bindRequest(1, userDn(1), 'password'), searchRequest(2)]));
      const done = await connection.until(() => connection.responses.some((response) => response.messageId === 2 && response.op === Op.searchDone), 5000);
      assert.ok(done, `${what}: no answer from a fresh connection (got ${JSON.stringify(connection.responses)})`);
      assert.equal(connection.responses.find((response) => response.op === Op.bindResponse)?.code, 0, `${what}: bind`);
      assert.equal(connection.responses.find((response) => response.op === Op.searchDone)?.code, 0, `${what}: search`);
      assert.equal(connection.responses.filter((response) => response.op === Op.searchEntry).length, 1, `${what}: entry`);
    } finally {
      connection.destroy();
    }
  }

  test('garbage bytes (HTTP, RDP cookie, TLS hello, random): the connection is closed, at most after a notice of disconnection', async () => {
    const random = prng(20240901);
    const garbage: { name: string; bytes: Buffer }[] = [
      { name: 'HTTP request', bytes: Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/8.0\r\n\r\n') },
      { name: 'RDP cookie', bytes: Buffer.concat([Buffer.from('030000272ee000000000', 'hex'), Buffer.from('Cookie: mstshash=Administr\r\n'), Buffer.from('0100080003000000', 'hex')]) },
      { name: 'TLS ClientHello start', bytes: Buffer.from('16030100a5010000a10303', 'hex') },
      { name: 'SSH banner', bytes: Buffer.from('SSH-2.0-OpenSSH_9.6\r\n') },
      { name: 'indefinite length', bytes: Buffer.from('3080020101', 'hex') },
      { name: 'five length bytes', bytes: Buffer.from('30850000000001', 'hex') },
    ];
    for (let i = 0; i < 20; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 200) }, () => Math.floor(random() * 256)));
      if (bytes[0] === 0x30) bytes[0] = 0x31; // a random 0x30 header would legitimately wait for its body
      garbage.push({ name: `random #${i}`, bytes });
    }
    const outcomes = await Promise.all(garbage.map(async ({ name, bytes }) => {
      const connection = await RawConnection.open(server.port);
      connection.write(bytes);
      const closed = await connection.waitClosed(CONNECTION_TIMEOUT_MS);
      connection.destroy();
      return { name, closed, connection };
    }));
    for (const { name, closed, connection } of outcomes) {
      assert.ok(closed, `${name}: the server did not close the connection within ${CONNECTION_TIMEOUT_MS} ms`);
      assertOnlyNotice(connection, name, 2);
    }
    assert.ok(outcomes.some(({ connection }) => connection.responses.length === 1), 'a notice of disconnection is sent at least sometimes');
    await assertServing('after garbage');
  });

  test('random garbage of any kind followed by end of stream: closed, never hung', async () => {
    const random = prng(77);
    const jobs = Array.from({ length: 60 }, (_, i) => async () => {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.floor(random() * 256)));
      if (i % 3 === 0) bytes[0] = 0x30; // an LDAPMessage header with a random length
      const connection = await RawConnection.open(server.port);
      connection.write(bytes);
      connection.socket.end();
      const closed = await connection.waitClosed(CONNECTION_TIMEOUT_MS);
      connection.destroy();
      return { i, closed, garbled: connection.garbled };
    });
    for (const { i, closed, garbled } of await pool(jobs, 20)) {
      assert.ok(closed, `garbage #${i}: not closed after end of stream`);
      assert.equal(garbled, undefined, `garbage #${i}`);
    }
    await assertServing('after garbage with end of stream');
  });

  test('truncated frames: every prefix of a valid request, then end of stream: closed', async () => {
    const request = searchRequest(3, userDn(5), '(&(uid=user.5)(objectClass=person))');
    const jobs = Array.from({ length: request.length - 1 }, (_, index) => async () => {
      const cut = index + 1;
      const connection = await RawConnection.open(server.port);
      connection.write(request.subarray(0, cut));
      connection.socket.end();
      const closed = await connection.waitClosed(CONNECTION_TIMEOUT_MS);
      connection.destroy();
      return { cut, closed, connection };
    });
    for (const { cut, closed, connection } of await pool(jobs, 20)) {
      assert.ok(closed, `prefix of ${cut}/${request.length} bytes: not closed after end of stream`);
      assertOnlyNotice(connection, `prefix of ${cut} bytes`);
    }
    await assertServing('after truncated prefixes');
  });

  test('truncated frames: a whole LDAPMessage whose content is cut short: protocolError notice and close, without end of stream', async () => {
    const request = searchRequest(4, userDn(6), '(|(uid=user.6)(cn=*x*))');
    const header = request[1]! < 0x80 ? 2 : 2 + (request[1]! & 0x7f);
    const content = request.subarray(header);
    const jobs = Array.from({ length: content.length - 1 }, (_, index) => async () => {
      const kept = index + 1;
      const frame = tlv(0x30, content.subarray(0, kept));
      const connection = await RawConnection.open(server.port);
      connection.write(frame);
      const closed = await connection.waitClosed(CONNECTION_TIMEOUT_MS);
      connection.destroy();
      return { kept, closed, connection };
    });
    for (const { kept, closed, connection } of await pool(jobs, 20)) {
      assert.ok(closed, `content cut to ${kept}/${content.length} bytes: not closed within ${CONNECTION_TIMEOUT_MS} ms (responses ${JSON.stringify(connection.responses)})`);
      assertOnlyNotice(connection, `content cut to ${kept} bytes`, 2);
    }
    await assertServing('after truncated content');
  });

  test('single-byte mutations of a valid search (300 seeded cases): each connection is answered or closed, none hangs', async (t) => {
    const seed = 4511;
    const random = prng(seed);
    const valid = searchRequest(5, userDn(7), '(&(objectClass=inetOrgPerson)(|(uid=user.7)(sn>=M))(!(cn=*z*)))');
    const sentinel = whoAmIRequest(99);
    const deadline = Date.now() + 120_000;
    const cases = Array.from({ length: 300 }, () => {
      const mutated = Buffer.from(valid);
      const position = Math.floor(random() * mutated.length);
      const byte = (mutated[position]! + 1 + Math.floor(random() * 255)) % 256; // never the same byte
      mutated[position] = byte;
      return { position, byte, mutated };
    });
    type Outcome = 'answered' | 'closed' | 'hung' | 'skipped';
    const jobs = cases.map(({ position, byte, mutated }) => async (): Promise<{ label: string; outcome: Outcome; responses: readonly Response[]; garbled?: string }> => {
      const label = `byte ${position} = 0x${byte.toString(16)} (seed ${seed})`;
      if (Date.now() > deadline) return { label, outcome: 'skipped', responses: [] };
      const connection = await RawConnection.open(server.port);
      const settled = () => connection.closed || connection.responses.some((response) => response.messageId === 99);
      try {
        connection.write(Buffer.concat([mutated, sentinel]));
        let done = await connection.until(settled, CONNECTION_TIMEOUT_MS);
        if (!done) {
          // The header may now declare more bytes than were sent: the server rightly waits. Send the rest.
          const declared = declaredSize(mutated);
          const sent = mutated.length + sentinel.length;
          if (declared !== undefined && declared > sent && declared - sent <= 1024 * 1024) {
            connection.write(Buffer.alloc(declared - sent));
            connection.write(sentinel);
            done = await connection.until(settled, CONNECTION_TIMEOUT_MS);
          }
        }
        const outcome: Outcome = !done ? 'hung' : connection.closed && !connection.responses.some((response) => response.messageId === 99) ? 'closed' : 'answered';
        return { label, outcome, responses: [...connection.responses], ...(connection.garbled !== undefined && { garbled: connection.garbled }) };
      } finally {
        connection.destroy();
      }
    });
    const results = await pool(jobs, 20);
    const hung = results.filter((result) => result.outcome === 'hung');
    assert.deepEqual(hung.map((result) => `${result.label}: ${JSON.stringify(result.responses)}`), [], 'connections neither answered nor closed');
    const garbled = results.filter((result) => result.garbled !== undefined);
    assert.deepEqual(garbled.map((result) => `${result.label}: ${result.garbled}`), [], 'responses that are not LDAP');
    const unexpected = results.flatMap((result) => result.responses.filter((response) => response.code === 80).map(() => result.label));
    assert.deepEqual(unexpected, [], 'mutations answered with "other" (an internal error)');
    const counts = { answered: 0, closed: 0, skipped: 0 };
    for (const result of results) if (result.outcome !== 'hung') counts[result.outcome] += 1;
    t.diagnostic(`mutations: ${JSON.stringify(counts)}`);
    assert.ok(counts.answered + counts.closed >= 100, `at least 100 cases ran within the time bound: ${JSON.stringify(counts)}`);
    assert.ok(counts.closed > 0 && counts.answered > 0, `both outcomes happen: ${JSON.stringify(counts)}`);
    await assertServing('after mutations');
  });

  test('5,000 pipelined searches in one write: all 5,000 answered, in full', async () => {
    const count = 5000;
    const connection = await RawConnection.open(server.port);
    try {
      const requests = Buffer.concat(Array.from({ length: count }, (_, i) => searchRequest(i + 1, userDn(i % 100))));
      connection.write(requests);
      const done = () => connection.responses.filter((response) => response.op === Op.searchDone).length;
      assert.ok(await connection.until(() => done() >= count || connection.closed, 60_000), `only ${done()} of ${count} answered within 60 s`);
      assert.equal(connection.closed, false, 'the connection stays open');
      const dones = connection.responses.filter((response) => response.op === Op.searchDone);
      assert.equal(dones.length, count);
      assert.ok(dones.every((response) => response.code === 0), 'every search succeeded');
      assert.deepEqual(new Set(dones.map((response) => response.messageId)).size, count, 'each message ID answered once');
      const entries = connection.responses.filter((response) => response.op === Op.searchEntry);
      assert.equal(entries.length, count);
      const byId = new Map(entries.map((response) => [response.messageId, response.dn]));
      assert.equal(byId.get(1), userDn(0));
      assert.equal(byId.get(count), userDn((count - 1) % 100));
    } finally {
      connection.destroy();
    }
    await assertServing('after 5,000 pipelined searches');
  });

  test('5,000 pipelined binds in one write (wrong, right, anonymous): all 5,000 answered', async () => {
    const count = 5000;
    const connection = await RawConnection.open(server.port);
    try {
      const requests = Buffer.concat(Array.from({ length: count }, (_, i) => (i % 50 === 0
        ? bindRequest(i + 1, userDn(3), 'wrong')
        : i % 50 === 1 ? bindRequest(i + 1, userDn(3), 'password') : bindRequest(i + 1))));
      connection.write(Buffer.concat([requests, whoAmIRequest(count + 1)]));
      const binds = () => connection.responses.filter((response) => response.op === Op.bindResponse);
      const finished = () => binds().length >= count && connection.responses.some((response) => response.messageId === count + 1);
      assert.ok(await connection.until(() => finished() || connection.closed, 60_000), `only ${binds().length} of ${count} binds answered within 60 s`);
      assert.equal(connection.closed, false, 'the connection stays open');
      assert.equal(binds().length, count);
      assert.equal(new Set(binds().map((response) => response.messageId)).size, count, 'each message ID answered once');
      assert.equal(binds().filter((response) => response.code === 49).length, count / 50, 'the wrong passwords');
      assert.equal(binds().filter((response) => response.code === 0).length, count - count / 50);
      assert.equal(connection.responses.find((response) => response.messageId === count + 1)?.code, 0);
    } finally {
      connection.destroy();
    }
    await assertServing('after 5,000 pipelined binds');
  });

  test('5,000 pipelined abandon requests, then a request: no crash, the request is answered', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      const abandons = Buffer.concat(Array.from({ length: 5000 }, (_, i) => abandonRequest(i + 2, i + 1)));
      connection.write(Buffer.concat([abandons, whoAmIRequest(6000)]));
      assert.ok(await connection.until(() => connection.responses.some((response) => response.messageId === 6000) || connection.closed, 10_000));
      assert.deepEqual(connection.responses.map((response) => response.messageId), [6000], 'abandon gets no response');
    } finally {
      connection.destroy();
    }
    await assertServing('after 5,000 abandons');
  });

  test('a message declaring 2 GiB, followed by 48 MiB: closed promptly, memory stays bounded', async (t) => {
    const pid = server.process.pid!;
    const rssBefore = serverMemory(pid);
    const connection = await RawConnection.open(server.port);
    const started = performance.now();
    let written = 0;
    let closedAt: number | undefined;
    connection.socket.once('close', () => (closedAt = performance.now()));
    try {
      connection.write(Buffer.from([0x30, 0x84, 0x80, 0x00, 0x00, 0x00, 0x02, 0x01, 0x01]));
      const chunk = Buffer.alloc(1024 * 1024, 0x41);
      const limit = 48 * 1024 * 1024;
      const deadline = Date.now() + 20_000;
      while (written < limit && !connection.closed && Date.now() < deadline) {
        written += chunk.length;
        if (!connection.socket.write(chunk, () => {})) {
          await Promise.race([new Promise((resolve) => connection.socket.once('drain', resolve)), connection.waitClosed(2000)]);
        }
      }
      assert.ok(await connection.waitClosed(5000), `not closed (wrote ${written} bytes)`);
      const millis = (closedAt ?? performance.now()) - started;
      assert.ok(millis < 5000, `closed after ${Math.round(millis)} ms`);
      t.diagnostic(`closed after ${Math.round(millis)} ms, ${Math.round(written / 1024 / 1024)} MiB written`);
      assertOnlyNotice(connection, '2 GiB message', 2);
    } finally {
      connection.destroy();
    }
    await sleep(200);
    const growth = serverMemory(pid) - rssBefore;
    t.diagnostic(`server RSS ${Math.round(rssBefore / 1024 / 1024)} MiB before, grew by ${Math.round(growth / 1024 / 1024)} MiB`);
    assert.ok(growth < 64 * 1024 * 1024, `RSS grew by ${Math.round(growth / 1024 / 1024)} MiB`);
    await assertServing('after a 2 GiB header');
  });

  test('a message just above the anonymous limit (256 KiB) is refused too, while a bound client may send more', async () => {
    const big = searchWithFilter(8, tlv(0xa3, Buffer.concat([tlv(0x04, Buffer.from('description')), tlv(0x04, Buffer.alloc(300 * 1024, 0x61))])));
    const anonymous = await RawConnection.open(server.port);
    try {
      anonymous.write(big);
      assert.ok(await anonymous.waitClosed(CONNECTION_TIMEOUT_MS), 'an anonymous 300 KiB message closes the connection');
      assertOnlyNotice(anonymous, '300 KiB anonymous', 2);
    } finally {
      anonymous.destroy();
    }
    const bound = await RawConnection.open(server.port);
    try {
      bound.write(bindRequest(1, userDn(2), 'password'));
      assert.ok(await bound.until(() => bound.responses.length > 0, 5000));
      assert.equal(bound.responses[0]?.code, 0);
      bound.write(big);
      assert.ok(await bound.until(() => bound.responses.some((response) => response.messageId === 8) || bound.closed, 10_000));
      assert.equal(bound.responses.find((response) => response.messageId === 8)?.code, 0, 'a bound client may send 300 KiB');
    } finally {
      bound.destroy();
    }
  });

  test('a 10,000-deep nested filter (not, and): refused (closed or protocolError), no crash', async () => {
    for (const [name, tag] of [['not', 0xa2], ['and', 0xa0], ['or', 0xa1]] as const) {
      const filter = nestedFilter(tag, 10_000);
      const connection = await RawConnection.open(server.port);
      try {
        connection.write(searchWithFilter(9, filter));
        const settled = await connection.until(() => connection.closed || connection.responses.some((response) => response.messageId === 9), CONNECTION_TIMEOUT_MS);
        assert.ok(settled, `${name}: neither answered nor closed`);
        const answer = connection.responses.find((response) => response.messageId === 9);
        if (answer) assert.equal(answer.code, 2, `${name}: protocolError`);
        else assertOnlyNotice(connection, `${name} x 10,000`, 2);
      } finally {
        connection.destroy();
      }
    }
    // 60 levels are within the server's limit and must still work.
    const connection = await RawConnection.open(server.port);
    try {
      connection.write(searchWithFilter(10, nestedFilter(0xa0, 60)));
      assert.ok(await connection.until(() => connection.responses.some((response) => response.op === Op.searchDone), 5000));
      assert.equal(connection.responses.find((response) => response.op === Op.searchDone)?.code, 0);
      assert.equal(connection.responses.filter((response) => response.op === Op.searchEntry).length, 101, 'ou=People and its 100 users');
    } finally {
      connection.destroy();
    }
    await assertServing('after deep filters');
  });

  /** The error-level (50+) log lines, parsed. */
  const errorLines = () => server.logs().flatMap((line) => {
    try {
      const record = JSON.parse(line) as { level?: number; msg?: string; err?: { code?: string; message?: string } };
      return (record.level ?? 0) >= 50 ? [record] : [];
    } catch {
      return [];
    }
  });
  /** A write error because the client went away (EPIPE, ECONNRESET, write after FIN). */
  const clientGone = (record: ReturnType<typeof errorLines>[number]) => ['EPIPE', 'ECONNRESET'].includes(record.err?.code ?? '');

  test('a client that disconnects while large results are being written: no error is logged, no internal-error reply', async () => {
    const before = errorLines().length;
    for (let round = 0; round < 3; round++) {
      const connection = await RawConnection.open(server.port);
      connection.socket.pause(); // read nothing: the server's writes back up
      const searches = Array.from({ length: 30 }, (_, i) =>
        new messages.SearchRequest({ messageId: i + 1, baseObject: PEOPLE, scope: 'sub', filter: '(objectClass=*)', attributes: ['*', '+'] }).toBer().buffer);
      connection.write(Buffer.concat(searches));
      await sleep(300);
      connection.destroy();
    }
    await sleep(1000);
    const added = errorLines().slice(before);
    assert.deepEqual(added.map((record) => `${record.msg}: ${record.err?.code ?? ''} ${record.err?.message ?? ''}`), [],
      'a connection closed by the client is not a server error (connection.ts treats it as Abandoned)');
    await assertServing('after clients that went away');
  });

  test('search parameters out of range: protocolError with OpenLDAP\'s text, and the connection goes on', async () => {
    const cases = [
      { options: { timeLimit: -5 }, text: 'invalid time limit' },
      { options: { sizeLimit: -1 }, text: 'invalid size limit' },
      { options: { scope: 5 }, text: 'invalid scope' },
      { options: { derefAliases: 4 }, text: 'invalid deref' },
    ];
    const connection = await RawConnection.open(server.port);
    try {
      let messageId = 1;
      for (const { options, text } of cases) {
        const answer = await exchange(connection, messageId, rawSearch(messageId, userDn(1), options));
        assert.deepEqual([answer.code, answer.message], [2, text], JSON.stringify(options));
        messageId += 1;
        assert.equal((await exchange(connection, messageId, whoAmIRequest(messageId))).code, 0, 'the connection stays open');
        messageId += 1;
      }
    } finally {
      connection.destroy();
    }
  });

  test('afterwards: ldapwhoami as a user exits 0, the same process is alive, nothing else was logged as an error', async () => {
    const result = await ldapTool('ldapwhoami', server.url, [], { dn: userDn(42), password: 'password' });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), `dn:${userDn(42)}`);
    assert.equal(server.process.exitCode, null);
    assert.equal(server.process.signalCode, null);
    assert.doesNotThrow(() => process.kill(server.process.pid!, 0), 'the server process still exists');
    const others = errorLines().filter((record) => !clientGone(record));
    assert.deepEqual(others, [], 'error-level log lines other than writes to clients that went away (see the test above)');
    assert.equal(server.stderr(), '', 'nothing on standard error');
  });
});

describe('leveldap serve --idle-timeout 1', { skip }, () => {
  let server: LeveldapServer;

  before(async () => {
    server = await startLeveldap({ users: 10, args: ['--idle-timeout', '1'] });
  });

  after(async () => {
    await server?.stop();
  });

  test('an idle connection is closed within a few seconds (after a notice of disconnection)', async () => {
    const connection = await RawConnection.open(server.port);
    const started = performance.now();
    try {
      assert.ok(await connection.waitClosed(5000), 'closed within 5 s');
      const millis = performance.now() - started;
      assert.ok(millis >= 800, `not before the timeout (${Math.round(millis)} ms)`);
      assertOnlyNotice(connection, 'idle', 52);
    } finally {
      connection.destroy();
    }
  });

  test('an idle connection after a bind is closed too', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      connection.write(bindRequest(1, userDn(1), 'password'));
      assert.ok(await connection.until(() => connection.responses.length > 0, 5000));
      assert.equal(connection.responses[0]?.code, 0);
      assert.ok(await connection.waitClosed(5000), 'closed within 5 s');
    } finally {
      connection.destroy();
    }
  });

  test('a connection in use (a request every 300 ms for 3 s) stays open', async () => {
    const connection = await RawConnection.open(server.port);
    try {
      for (let id = 1; id <= 10; id++) {
        connection.write(whoAmIRequest(id));
        assert.ok(await connection.until(() => connection.responses.some((response) => response.messageId === id), 2000), `request ${id} answered`);
        assert.equal(connection.closed, false, `still open at request ${id}`);
        await sleep(300);
      }
    } finally {
      connection.destroy();
    }
    const result = await ldapTool('ldapwhoami', server.url, [], { dn: userDn(1), password: 'password' });
    assert.equal(result.code, 0, result.stderr);
  });
});
