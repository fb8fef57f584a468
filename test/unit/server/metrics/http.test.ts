/** The metrics endpoint (src/server/metrics/http.ts): /readyz says what is missing; /healthz; /metrics in the text format; other paths and methods. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startMetricsServer, type Readiness } from '../../../../src/server/metrics/http.js';
import { MonitorPeers } from '../../../../src/server/monitor/peers.js';
import type { DirectoryStore } from '../../../../src/store/index.js';

const log = pino({ level: 'silent' });

async function withEndpoint(readiness: Readiness, body: (url: string) => Promise<void>): Promise<void> {
  const server = await startMetricsServer({ port: 0, host: '127.0.0.1' }, new Registry(), readiness, log);
  try {
    await body(`http://127.0.0.1:${server.port}`);
  } finally {
    await server.stop();
  }
}

const store = (isOpen: boolean, stale?: string) => ({ isOpen, staleReason: () => stale }) as unknown as DirectoryStore;

test('/readyz: 200 while the database is open and every serving thread answers; 503 naming what is missing', async () => {
  const name = `readyz-${process.pid}-${Date.now()}`;
  const serving = new MonitorPeers(name, 0, 2, { thread: 0, connections: () => [] });
  const main = new MonitorPeers(name, -1, 2);
  try {
    await withEndpoint({ store: store(true), peers: main, threads: 2 }, async (url) => {
      const response = await fetch(`${url}/readyz`);
      assert.equal(response.status, 503);
      assert.equal(await response.text(), 'not ready: serving threads answered: 1 of 2\n');
    });
    const other = new MonitorPeers(name, 1, 2, { thread: 1, connections: () => [] });
    try {
      await withEndpoint({ store: store(true), peers: main, threads: 2 }, async (url) => {
        const response = await fetch(`${url}/readyz`);
        assert.equal(response.status, 200);
        assert.equal(await response.text(), 'ready\n');
      });
    } finally {
      other.close();
    }
    await withEndpoint({ store: store(false), peers: main, threads: 2 }, async (url) => {
      assert.equal(await (await fetch(`${url}/readyz`)).text(), 'not ready: the database is not open\n');
    });
    await withEndpoint({ store: store(true, 'the PostgreSQL store has not answered for 31 s'), peers: main, threads: 2 }, async (url) => {
      const response = await fetch(`${url}/readyz`);
      assert.equal(response.status, 503);
      assert.equal(await response.text(), 'not ready: the PostgreSQL store has not answered for 31 s\n');
    });
  } finally {
    serving.close();
    main.close();
  }
});

test('/healthz, /metrics, and refusals', async () => {
  const peers = new MonitorPeers(`healthz-${process.pid}`, 0, 1, { thread: 0, connections: () => [] });
  try {
    await withEndpoint({ store: store(true), peers, threads: 1 }, async (url) => {
      assert.equal(await (await fetch(`${url}/healthz`)).text(), 'ok\n');
      const metrics = await fetch(`${url}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      assert.equal((await fetch(`${url}/elsewhere`)).status, 404);
      assert.equal((await fetch(`${url}/metrics`, { method: 'POST' })).status, 405);
    });
  } finally {
    peers.close();
  }
});
