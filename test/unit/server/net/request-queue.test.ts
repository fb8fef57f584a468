/**
 * What a connection keeps waiting (src/server/net/request-queue.ts): messages stay bytes until they
 * are next and keep their arrival time, abandon removes a waiting request (never a bind), a malformed message is found when it
 * is decoded; and the thread's budget of operations in flight (src/server/threads/load.ts).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { peekRequest, ProtocolError } from '../../../../src/protocol/index.js';
import { RequestQueue } from '../../../../src/server/net/request-queue.js';
import { ThreadLoad } from '../../../../src/server/threads/load.js';
import { bindRequest, deleteRequest, searchRequest } from '../../../helpers/ldap-requests.js';
import type { AnsweredRequest } from '../../../../src/server/dispatch.js';

function queued(queue: RequestQueue, frame: Buffer, arrived = 0): void {
  queue.pushFrame(peekRequest(frame) as ReturnType<typeof peekRequest> & { kind: AnsweredRequest['kind'] }, frame, arrived);
}

describe('RequestQueue', () => {
  test('peekRequest reads the message ID and kind only', () => {
    assert.deepEqual(peekRequest(searchRequest(7, 'dc=example,dc=com')), { messageId: 7, kind: 'search' });
    assert.deepEqual(peekRequest(bindRequest(3, 'cn=x', 'y')), { messageId: 3, kind: 'bind' });
    // A search whose body is garbage still has a readable envelope.
    const broken = Buffer.from([0x30, 0x06, 0x02, 0x01, 0x09, 0x63, 0x01, 0xff]);
    assert.deepEqual(peekRequest(broken), { messageId: 9, kind: 'search' });
    assert.throws(() => peekRequest(Buffer.from([0x30, 0x05, 0x02, 0x01, 0x01, 0x61, 0x00])), ProtocolError, 'a response tag');
  });

  test('requests come out in order, decoded when next, each with the time it arrived', () => {
    const queue = new RequestQueue();
    queued(queue, searchRequest(1, 'dc=example,dc=com'), 10.5);
    queued(queue, deleteRequest(2, 'cn=a,dc=example,dc=com'), 12);
    assert.equal(queue.length, 2);
    assert.equal(queue.next()?.kind, 'search');
    assert.equal(queue.shift(), 10.5);
    const next = queue.next();
    assert.equal(next?.kind, 'delete');
    assert.equal(next?.messageId, 2);
    assert.equal(queue.shift(), 12);
    assert.equal(queue.shift(), 0, 'nothing waits');
  });

  test('abandon removes a waiting request but not a bind; has() sees message IDs waiting', () => {
    const queue = new RequestQueue();
    queued(queue, bindRequest(1, 'cn=x', 'y'));
    queued(queue, searchRequest(2, 'dc=example,dc=com'));
    assert.equal(queue.abandon(1), false);
    assert.equal(queue.abandon(2), true);
    assert.equal(queue.has(2), false);
    assert.equal(queue.has(1), true);
    assert.equal(queue.length, 1);
  });

  test('a malformed message is a ProtocolError when it is next, not before', () => {
    const queue = new RequestQueue();
    queued(queue, Buffer.from([0x30, 0x06, 0x02, 0x01, 0x09, 0x63, 0x01, 0xff]));
    assert.equal(queue.length, 1);
    assert.throws(() => queue.next(), ProtocolError);
  });
});

describe('ThreadLoad', () => {
  test('a connection with nothing in flight may always start; others wait for room and are woken once', () => {
    const load = new ThreadLoad(4);
    assert.equal(load.mayStart(3, 0), true);
    load.started(3);
    assert.equal(load.mayStart(2, 1), false, 'over the budget for a connection already running something');
    assert.equal(load.mayStart(10, 0), true, 'a connection with nothing in flight goes on');
    let woken = 0;
    load.waitForRoom(() => { woken += 1; });
    load.finished(3);
    load.finished(0);
    assert.equal(woken, 1);
    assert.equal(load.weight, 0);
  });
});
