/**
 * When the password table's walk takes a turn (src/server/password-fill.ts): at once while the
 * serving threads answer few operations, and only once they have gone quiet while they are busy.
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

test('a quiet server: the walk goes on at once, without waiting', async () => {
  const { reader, answered } = fakeReader();
  const turn = quietTurns(reader);
  await new Promise((resolve) => setTimeout(resolve, 50));
  answered.count += 2; // 40 a second
  const started = performance.now();
  assert.equal(await turn(), false);
  assert.ok(performance.now() - started < 50);
});

test('a busy server: the walk waits until the operations stop, and says it waited', async () => {
  const { reader, answered } = fakeReader();
  const turn = quietTurns(reader);
  const busy = setInterval(() => { answered.count += 100; }, 10); // about 10,000 a second
  setTimeout(() => clearInterval(busy), 350);
  const alive = setTimeout(() => {}, 5000); // the walk's waits do not hold the event loop (a server's sockets do)
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  assert.equal(await turn(), true);
  assert.ok(performance.now() - started >= 300, `waited ${performance.now() - started} ms while busy`);
  assert.equal(await turn(), false, 'quiet since');
  clearTimeout(alive);
});
