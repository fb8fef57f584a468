/**
 * Searches release their LevelDB iterators however they end: completed, stopped by a limit,
 * abandoned, left between pages, or cut short because the client went away while entries were
 * being written. The server runs in this process so that the database's open resources
 * (abstract-level iterators, attached to the database while open) can be counted.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createRegistry } from '../../src/password/index.js';
import { DEFAULT_LIMITS, startServer, type Started } from '../../src/server/index.js';
import { populateDatabase } from '../helpers/leveldap-server.js';
import { Op, RawConnection } from '../helpers/ldap-client.js';
import { tempDir } from '../helpers/store.js';
import { eventually } from '../helpers/eventually.js';

interface Encodable {
  toBer(): { buffer: Buffer };
}
interface Messages {
  SearchRequest: new (options: {
    messageId: number; baseObject: string; scope: 'base' | 'one' | 'sub'; filter: string; attributes?: string[]; sizeLimit?: number;
    controls?: unknown[];
  }) => Encodable;
  AbandonRequest: new (options: { messageId: number; abandonId: number }) => Encodable;
}
interface Controls {
  PagedResultsControl: new (options: { value: { size: number; cookie?: Buffer } }) => unknown;
}
interface ResourceHost {
  attachResource(resource: object): void;
  detachResource(resource: object): void;
}

const require = createRequire(import.meta.url);
const messages = require('@ldapjs/messages') as Messages;
const controls = require('@ldapjs/controls') as Controls;

/** Every resource (iterator) attached to a database and not yet detached, in this process. */
const openResources = new Set<object>();
let attachedEver = 0;
{
  const { AbstractLevel } = require('abstract-level') as { AbstractLevel: { prototype: ResourceHost } };
  const { attachResource, detachResource } = AbstractLevel.prototype;
  AbstractLevel.prototype.attachResource = function (this: ResourceHost, resource: object) {
    openResources.add(resource);
    attachedEver += 1;
    attachResource.call(this, resource);
  };
  AbstractLevel.prototype.detachResource = function (this: ResourceHost, resource: object) {
    openResources.delete(resource);
    detachResource.call(this, resource);
  };
}

const PEOPLE = 'ou=People,dc=example,dc=com';
const USERS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const subtreeSearch = (messageId: number, extra: { sizeLimit?: number; controls?: unknown[] } = {}) =>
  new messages.SearchRequest({ messageId, baseObject: PEOPLE, scope: 'sub', filter: '(objectClass=*)', attributes: ['*', '+'], ...extra }).toBer().buffer;

describe('leveldap serve: searches release their database iterators', () => {
  let started: Started;
  let removeDir: () => Promise<void>;
  let port: number;

  before(async () => {
    const dir = await tempDir('leveldap-serve-resources-');
    removeDir = dir.remove;
    const dataDir = join(dir.path, 'db');
    await populateDatabase(dataDir, USERS);
    started = await startServer({
      dataDir, registry: createRegistry(), defaultScheme: 'SSHA512', allowClearDefault: false,
      adminPassword: Buffer.from('resources-admin'), logLevel: 'silent', threads: 1, // the open iterators are counted in this thread
      fillPasswordTable: 'never', // its walk holds an iterator for a moment (its own test: test/unit/store/password-table.test.ts)
      config: {
        host: '127.0.0.1', port: 0, baseDn: 'dc=example,dc=com', adminDn: 'cn=Directory Manager', anonymousRead: true,
        limits: { ...DEFAULT_LIMITS, sizeLimit: 0 },
      },
    });
    port = started.server.port;
  });

  after(async () => {
    await started?.stop();
    await removeDir?.();
  });

  /** Waits (up to 3 s) for the open resources to drop back to `baseline`; returns how many remain above it. */
  async function leakedAbove(baseline: number): Promise<number> {
    await eventually(() => openResources.size <= baseline, 3000);
    return openResources.size - baseline;
  }

  test('completed searches and searches stopped by a size limit: nothing stays open', async () => {
    const baseline = openResources.size;
    const attachedBefore = attachedEver;
    const connection = await RawConnection.open(port);
    try {
      connection.write(Buffer.concat([subtreeSearch(1), subtreeSearch(2, { sizeLimit: 10 }), subtreeSearch(3)]));
      assert.ok(await connection.until(() => connection.responses.filter((response) => response.op === Op.searchDone).length === 3, 30_000));
      const codes = connection.responses.filter((response) => response.op === Op.searchDone).map((response) => [response.messageId, response.code]);
      assert.deepEqual(codes.sort(), [[1, 0], [2, 4], [3, 0]]);
    } finally {
      connection.destroy();
    }
    assert.ok(attachedEver > attachedBefore, 'the instrumentation sees the iterators');
    assert.equal(await leakedAbove(baseline), 0);
  });

  test('a paged search left between pages is released when its connection closes', async () => {
    const baseline = openResources.size;
    const connection = await RawConnection.open(port);
    try {
      connection.write(subtreeSearch(1, { controls: [new controls.PagedResultsControl({ value: { size: 10 } })] }));
      assert.ok(await connection.until(() => connection.responses.some((response) => response.op === Op.searchDone), 10_000));
      assert.equal(connection.responses.filter((response) => response.op === Op.searchEntry).length, 10);
      assert.ok(openResources.size > baseline, 'the paged search keeps its iterator for the next page');
    } finally {
      connection.destroy();
    }
    assert.equal(await leakedAbove(baseline), 0);
  });

  test('searches abandoned while running: nothing stays open', async () => {
    const baseline = openResources.size;
    const connection = await RawConnection.open(port);
    try {
      const requests = [];
      for (let id = 1; id <= 8; id++) requests.push(subtreeSearch(id), new messages.AbandonRequest({ messageId: 100 + id, abandonId: id }).toBer().buffer);
      connection.write(Buffer.concat([...requests, subtreeSearch(50, { sizeLimit: 1 })]));
      assert.ok(await connection.until(() => connection.responses.some((response) => response.messageId === 50 && response.op === Op.searchDone), 30_000));
      await sleep(500);
      const abandoned = connection.responses.filter((response) => response.messageId <= 8);
      assert.ok(!abandoned.some((response) => response.op === Op.searchDone), 'an abandoned search gets no SearchResultDone');
      assert.ok(abandoned.length < 8 * 1000, `abandoned searches stopped early (${abandoned.length} entries sent)`);
    } finally {
      connection.destroy();
    }
    assert.equal(await leakedAbove(baseline), 0);
  });

  test('searches cut short because the client disconnected while entries were being written: nothing stays open', async () => {
    const baseline = openResources.size;
    const connections = await Promise.all(Array.from({ length: 5 }, () => RawConnection.open(port)));
    for (const connection of connections) {
      connection.socket.pause(); // read nothing: the server's writes back up and its searches wait to send
      connection.write(Buffer.concat(Array.from({ length: 8 }, (_, i) => subtreeSearch(i + 1))));
    }
    await sleep(1000);
    const running = openResources.size - baseline;
    for (const connection of connections) connection.destroy();
    const leaked = await leakedAbove(baseline);
    assert.ok(running > 0, 'searches were waiting to write when the clients went away');
    assert.equal(leaked, 0, `${leaked} of ${running} database resources stay open after their clients went away`);
  });
});
