/** The memory budget of costly verifications: admitted within it, waiting beyond it, shared by threads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HashMemoryBudget } from '../../../src/password/index.js';

/** `count` works of `kib` each through the budget, each held until the test lets go; the most seen running at once. */
async function holdAll(budgets: readonly HashMemoryBudget[], count: number, kib: number): Promise<number> {
  let running = 0;
  let most = 0;
  const works = Array.from({ length: count }, (_unused, n) => budgets[n % budgets.length]!.run(kib, async () => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 20));
    running -= 1;
  }));
  await Promise.all(works);
  return most;
}

test('a fixed budget of 4 MiB runs at most two 2 MiB verifications at once; the rest wait and all finish', async () => {
  const budget = HashMemoryBudget.allocate(4, 2);
  assert.equal(await holdAll([budget], 9, 2048), 2);
  assert.deepEqual(budget.state(), { inUseKiB: 0, budgetKiB: 4096, waiting: 0, running: 0 });
});

test('auto: hashing threads x the largest cost admitted so far', async () => {
  const budget = HashMemoryBudget.allocate(0, 3);
  assert.equal(await holdAll([budget], 10, 2048), 3);
  assert.equal(budget.state().budgetKiB, 3 * 2048);
  assert.match(budget.describe(), /auto: 3 hashing threads/);
});

test('one verification larger than the budget still runs, alone', async () => {
  const budget = HashMemoryBudget.allocate(1, 2);
  assert.equal(await holdAll([budget], 3, 4096), 1);
});

test('cheap hashes (under 1 MiB) are not counted: they never wait', async () => {
  const budget = HashMemoryBudget.allocate(1, 1);
  assert.equal(await holdAll([budget], 5, 64), 5);
});

test('two threads over one shared count are bounded together', async () => {
  const first = HashMemoryBudget.allocate(6, 2);
  const second = new HashMemoryBudget(first.buffer, 2);
  assert.equal(await holdAll([first, second], 12, 2048), 3);
  assert.equal(first.state().inUseKiB, 0);
});

test('a failing verification gives its memory back', async () => {
  const budget = HashMemoryBudget.allocate(2, 1);
  await assert.rejects(budget.run(2048, async () => { throw new Error('libargon2 refused'); }), /refused/);
  assert.equal(budget.state().inUseKiB, 0);
  assert.equal(await budget.run(2048, async () => 'ran'), 'ran');
});

test('waiters are admitted in the order they came, whichever thread they wait in', async () => {
  // Each thread used to admit its own waiters first on every release, so a thread with a steady
  // queue kept the room and another thread's waiters waited for that queue to empty (a
  // 32-connection Argon2id run: one serving thread's binds never finished).
  const first = HashMemoryBudget.allocate(2, 1);
  const second = new HashMemoryBudget(first.buffer, 1);
  const order: string[] = [];
  const work = (budget: HashMemoryBudget, label: string) => budget.run(2048, async () => {
    order.push(label);
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
  await Promise.all([work(first, 'a1'), work(first, 'a2'), work(second, 'b1'), work(first, 'a3'), work(second, 'b2')]);
  assert.deepEqual(order, ['a1', 'a2', 'b1', 'a3', 'b2']);
  assert.deepEqual(first.state(), { inUseKiB: 0, budgetKiB: 2048, waiting: 0, running: 0 });
});
