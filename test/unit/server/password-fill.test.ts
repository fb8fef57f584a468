/**
 * When the password table's walk may go on (src/server/password-fill.ts): while the serving
 * threads answer few operations, and once they have gone quiet after being busy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quietTurns } from '../../../src/server/password-fill.js';
import type { StatsReader } from '../../../src/server/monitor/stats.js';

/** A reader whose operations answered are what the test says (all of them binds). */
function fakeReader(): { reader: StatsReader; answered: { count: number } } {
  const answered = { count: 0 };
  const reader = { completed: (kind: number) => (kind === 0 ? answered.count : 0) } as unknown as StatsReader;
  return { reader, answered };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a quiet server: the walk goes on, and waits for nothing', async () => {
  const { reader, answered } = fakeReader();
  const turns = quietTurns(reader);
  assert.equal(turns.now(), true, 'quiet at first');
  await sleep(120);
  answered.count += 2; // about 17 a second
  assert.equal(turns.now(), true);
  const started = performance.now();
  await turns.wait();
  assert.ok(performance.now() - started < 50);
});

test('a busy server: the walk stops, and waits until the operations stop', async () => {
  const { reader, answered } = fakeReader();
  const turns = quietTurns(reader);
  const busy = setInterval(() => { answered.count += 100; }, 10); // about 10,000 a second
  setTimeout(() => clearInterval(busy), 350);
  const alive = setTimeout(() => {}, 5000); // the walk's waits do not hold the event loop (a server's sockets do)
  await sleep(120);
  assert.equal(turns.now(), false);
  const started = performance.now();
  await turns.wait();
  assert.ok(performance.now() - started >= 200, `waited ${performance.now() - started} ms while busy`);
  assert.equal(turns.now(), true, 'quiet since');
  clearTimeout(alive);
});
