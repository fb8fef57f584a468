/** cn=Monitor's entries from a snapshot (src/server/monitor/tree.ts), and the questions threads ask each other (peers.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocateStats, kindIndex, SLOT, StatsReader, statsLayout, ThreadStats } from '../../../../src/server/monitor/stats.js';
import { monitorTree, type MonitorSnapshot } from '../../../../src/server/monitor/tree.js';
import { MonitorPeers } from '../../../../src/server/monitor/peers.js';
import type { ConnectionRecord } from '../../../../src/server/monitor/connections.js';
import { installSchema, buildSchema, values, type Entry } from '../../../../src/store/index.js';

installSchema(buildSchema([]));

const record = (id: number, thread: number, boundDn = ''): ConnectionRecord => ({
  id, thread, peer: `IP=127.0.0.1:${40000 + id}`, local: 'IP=127.0.0.1:1389', listener: 'ldap://127.0.0.1:1389/', boundDn, normalizedDn: boundDn.toLowerCase(),
  opsReceived: 3, opsExecuting: 1, opsPending: 0, opsCompleted: 2, startTime: Date.UTC(2026, 11, 1, 12), activityTime: Date.UTC(2026, 11, 1, 12, 0, 5),
});

function snapshot(): MonitorSnapshot {
  const layout = statsLayout(['SSHA512']);
  const buffer = allocateStats(layout, 2);
  const [zero, one] = [new ThreadStats(buffer, layout, 0), new ThreadStats(buffer, layout, 1)];
  zero.initiated(kindIndex('bind'));
  zero.completed(kindIndex('bind'), 0);
  one.initiated(kindIndex('search'));
  zero.bind(1, 'success', 0.002);
  one.add(SLOT.bytesSent, 1234);
  return {
    reader: new StatsReader(buffer, layout, 2), vendorVersion: '9.9.9', currentConnections: 2, reencoded: 4,
    connections: [record(1, 0, 'uid=a,dc=example,dc=com'), record(2, 1)], threads: 2,
    startedAt: Date.UTC(2026, 11, 1, 11), now: Date.UTC(2026, 11, 1, 12),
    database: { suffixes: ['dc=example,dc=com'], entries: 10, sizeBytes: 4096, directory: '/data/db' },
    listeners: ['ldap://127.0.0.1:1389/'], hashing: { waiting: 0, running: 1 },
  };
}

const text = (entry: Entry | undefined, name: string): string[] => (entry ? values(entry, name).map((value) => value.toString()) : []);

test('the tree is rooted at cn=Monitor, parents before children, and counts what the threads counted', () => {
  const tree = monitorTree(snapshot());
  const byDn = new Map(tree.map((entry) => [entry.dn, entry]));
  assert.equal(tree[0]?.dn, 'cn=Monitor');
  assert.deepEqual(text(tree[0], 'cn'), ['Monitor']);
  tree.forEach((entry, index) => {
    if (index === 0) return;
    const parent = entry.dn.slice(entry.dn.indexOf(',') + 1);
    assert.ok(tree.slice(0, index).some((earlier) => earlier.dn === parent), `${entry.dn} after its parent`);
  });
  assert.deepEqual(text(byDn.get('cn=Bind,cn=Operations,cn=Monitor'), 'monitorOpCompleted'), ['1']);
  assert.deepEqual(text(byDn.get('cn=Search,cn=Operations,cn=Monitor'), 'monitorOpInitiated'), ['1']);
  assert.deepEqual(text(byDn.get('cn=Operations,cn=Monitor'), 'monitorOpInitiated'), ['2']);
  assert.deepEqual(text(byDn.get('cn=Bytes,cn=Statistics,cn=Monitor'), 'monitorCounter'), ['1234']);
  assert.deepEqual(text(byDn.get('cn=Current,cn=Connections,cn=Monitor'), 'monitorCounter'), ['2']);
  assert.deepEqual(text(byDn.get('cn=Re-encoded,cn=Passwords,cn=Monitor'), 'monitorCounter'), ['4']);
  assert.deepEqual(text(byDn.get('cn=Uptime,cn=Time,cn=Monitor'), 'monitoredInfo'), ['3600']);
  assert.deepEqual(text(byDn.get('cn=Start,cn=Time,cn=Monitor'), 'monitorTimestamp'), ['20261201110000Z']);
  assert.ok(text(byDn.get('cn=SSHA512,cn=Binds,cn=Monitor'), 'monitoredInfo').includes('success le=0.0025 count=1'));
  assert.equal(byDn.get('cn=none,cn=Binds,cn=Monitor'), undefined, 'schemes without binds are left out');
});

test('a connection entry carries OpenLDAP\'s monitorConnection attributes; no AuthzDN when it is not bound (or hidden)', () => {
  const tree = monitorTree(snapshot());
  const bound = tree.find((entry) => entry.dn === 'cn=Connection 1,cn=Connections,cn=Monitor');
  const anonymous = tree.find((entry) => entry.dn === 'cn=Connection 2,cn=Connections,cn=Monitor');
  assert.deepEqual(text(bound, 'monitorConnectionAuthzDN'), ['uid=a,dc=example,dc=com']);
  assert.deepEqual(text(bound, 'monitorConnectionPeerAddress'), ['IP=127.0.0.1:40001']);
  assert.deepEqual(text(bound, 'monitorConnectionStartTime'), ['20261201120000Z']);
  assert.deepEqual(text(anonymous, 'monitorConnectionAuthzDN'), []);
  assert.deepEqual(text(anonymous, 'monitoredInfo'), ['thread=1']);
});

test('threads answer each other over their channel: connections from every thread, and pings', async () => {
  const name = `test-${process.pid}-${Date.now()}`;
  const zero = new MonitorPeers(name, 0, 2, { thread: 0, connections: () => [record(1, 0)] });
  const one = new MonitorPeers(name, 1, 2, { thread: 1, connections: () => [record(2, 1), record(4, 1)] });
  const main = new MonitorPeers(name, -1, 2);
  try {
    assert.deepEqual((await zero.connections()).map((connection) => connection.id), [1, 2, 4]);
    assert.deepEqual(await main.ping(), [0, 1]);
    one.close();
    const started = performance.now();
    assert.deepEqual(await main.ping(), [0], 'a thread that does not answer is missing');
    assert.ok(performance.now() - started >= 900, 'after waiting for it');
  } finally {
    for (const peers of [zero, one, main]) peers.close();
  }
});
