/**
 * Group commit of a node's writes (src/store/postgres/commit-batch.ts), against a connection that
 * records what it is sent and answers when the test says: writes arriving while a transaction runs
 * go together in the next one, and a transaction that stalls does not hold them up; writes
 * touching one entry never share one; a transaction
 * PostgreSQL refuses is sent again write by write, so only the write at fault fails; a lost
 * connection (with or without a socket error's code) fails every write of its transaction and
 * nothing is sent again. Plus the text of one transaction for several writes, and what a node's
 * write answers when its connection is reset during COMMIT (a locked-first one hands that
 * connection back as broken).
 */
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { CommitBatcher, MAX_WRITES, STALLED_MILLIS, transactionText, type WriteCommit } from '../../../src/store/postgres/commit-batch.js';
import { PostgresRecord } from '../../../src/store/postgres/record.js';
import type { Applier } from '../../../src/store/postgres/applier.js';
import { DirectoryError, StaleCopy } from '../../../src/store/errors.js';
import { STALE_ROW } from '../../../src/store/postgres/schema.js';
import { entryKey } from '../../../src/store/keys.js';
import { tokensOf as messageTokens } from '../../../src/store/postgres/statements.js';

const record = (text: string): Buffer => Buffer.from(text);

/** A write replacing one entry's record (held locally), checked against the digest `d-KEY`. */
function update(key: string, token = `t-${key}`): WriteCommit {
  return {
    checked: [key], digests: [`d-${key}`], token,
    local: new Map([[key, record('old')]]),
    changes: { entries: new Map([[key, { record: record(`new-${key}`), suffix: false }]]), settings: new Map() },
  };
}

interface Sent {
  readonly text: string;
  /** When it was sent (performance.now()). */
  readonly at: number;
  /** Answers the query: refused with `error`, else with `value`. */
  answer(error?: Error & { code?: string }, value?: unknown): void;
}

/** Connections that record each query and leave it pending until answered; ROLLBACK answers at once. */
function fakePool(): { connect: () => Promise<pg.PoolClient>; sent: Sent[]; released: boolean[] } {
  const sent: Sent[] = [];
  const released: boolean[] = [];
  const client = {
    query: (text: string) => {
      if (text === 'ROLLBACK') return Promise.resolve();
      return new Promise<unknown>((resolve, reject) => sent.push({ text, at: performance.now(), answer: (error, value) => (error ? reject(error) : resolve(value)) }));
    },
    release: (broken?: boolean) => { released.push(broken === true); },
  } as unknown as pg.PoolClient;
  return { connect: async () => client, sent, released };
}

/** PostgreSQL's answer refusing a statement (an ErrorResponse, as pg reports it). */
const refused = (code: string): Error & { code?: string } => Object.assign(new pg.DatabaseError(`refused ${code}`, 0, 'error'), { code });
/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));
/** The tokens of the logical decoding messages in a statement's text, as the applier reads them. */
const tokensOf = (text: string): string[] => [...text.matchAll(/'leveldap', '([^']+)'/g)].flatMap((match) => messageTokens(Buffer.from(match[1]!)));

/**
 * A write to `a` sent alone and committed; the writes of `keys`, which arrived meanwhile, sent
 * together as the second transaction (pool.sent[1], not answered yet) with their outcomes to come
 * ('ok', or the error's message).
 */
async function secondTransaction(keys: readonly string[]): Promise<{ pool: ReturnType<typeof fakePool>; outcomes: Promise<string>[] }> {
  const pool = fakePool();
  const batcher = new CommitBatcher(pool.connect);
  const first = batcher.commit(update('a'));
  const outcomes = keys.map((key) => batcher.commit(update(key)).then(() => 'ok', (error: Error) => error.message));
  await settle();
  pool.sent[0]!.answer();
  await first;
  await settle();
  return { pool, outcomes };
}

describe('CommitBatcher: writes arriving together share a transaction', () => {
  test('the first write goes alone at once; those arriving meanwhile go together next, in arrival order', async () => {
    const pool = fakePool();
    const batcher = new CommitBatcher(pool.connect);
    const first = batcher.commit(update('a'));
    await settle();
    assert.equal(pool.sent.length, 1);
    const later = ['b', 'c', 'd'].map((key) => batcher.commit(update(key)));
    await settle();
    assert.equal(pool.sent.length, 1, 'one transaction at a time');
    pool.sent[0]!.answer();
    await first;
    await settle();
    assert.equal(pool.sent.length, 2);
    assert.deepEqual(tokensOf(pool.sent[1]!.text), ['t-b', 't-c', 't-d']);
    pool.sent[1]!.answer();
    await Promise.all(later);
    assert.deepEqual([batcher.transactions, batcher.writes], [2, 4]);
    assert.deepEqual(pool.released, [false, false]);
  });

  test(`a transaction that stalls (a row locked elsewhere) holds the others up ${STALLED_MILLIS} ms at most`, async () => {
    const pool = fakePool();
    const batcher = new CommitBatcher(pool.connect);
    const stuck = batcher.commit(update('held-elsewhere'));
    await settle();
    const others = ['b', 'c'].map((key) => batcher.commit(update(key)));
    await settle();
    assert.equal(pool.sent.length, 1);
    while (pool.sent.length < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.ok(pool.sent[1]!.at - pool.sent[0]!.at >= STALLED_MILLIS - 1, 'not before the first has stalled');
    assert.deepEqual(tokensOf(pool.sent[1]!.text), ['t-b', 't-c']);
    pool.sent[1]!.answer();
    await Promise.all(others);
    pool.sent[0]!.answer();
    await stuck;
  });

  test('writes touching one entry, or one setting, never share a transaction', async () => {
    const pool = fakePool();
    const batcher = new CommitBatcher(pool.connect);
    const setting = (token: string): WriteCommit => ({
      checked: [], digests: [], token, local: new Map(), changes: { entries: new Map(), settings: new Map([['policy', token]]) },
    });
    const writes = [update('a', 'first'), update('x', 'x1'), update('x', 'x2'), setting('s1'), setting('s2'), update('y', 'y1')].map((write) => batcher.commit(write));
    for (const expected of [['first'], ['x1', 's1', 'y1'], ['x2', 's2']]) {
      await settle();
      assert.deepEqual(tokensOf(pool.sent.at(-1)!.text), expected);
      pool.sent.at(-1)!.answer();
    }
    await Promise.all(writes);
    assert.equal(pool.sent.length, 3);
  });

  test(`at most ${MAX_WRITES} writes a transaction`, async () => {
    const pool = fakePool();
    const batcher = new CommitBatcher(pool.connect);
    const writes = Array.from({ length: MAX_WRITES + 6 }, (_, i) => batcher.commit(update(`k${i}`)));
    const sizes: number[] = [];
    while (sizes.reduce((a, b) => a + b, 0) < writes.length) {
      await settle();
      sizes.push(tokensOf(pool.sent.at(-1)!.text).length);
      pool.sent.at(-1)!.answer();
    }
    await Promise.all(writes);
    assert.deepEqual(sizes, [1, MAX_WRITES, 5]);
  });

  test('a transaction PostgreSQL refuses is sent again write by write: only the write at fault fails', async () => {
    const { pool, outcomes } = await secondTransaction(['b', 'c', 'd']);
    pool.sent[1]!.answer(refused('LD001'));
    await settle();
    await settle();
    assert.deepEqual(pool.sent.slice(2).map((sent) => tokensOf(sent.text)), [['t-b'], ['t-c'], ['t-d']], 'each alone, the same statements');
    pool.sent[2]!.answer();
    pool.sent[3]!.answer(refused('LD001'));
    pool.sent[4]!.answer();
    assert.deepEqual(await Promise.all(outcomes), ['ok', 'refused LD001', 'ok']);
  });

  test('a connection lost during a transaction fails each of its writes, and nothing is sent again', async () => {
    const { pool, outcomes } = await secondTransaction(['b', 'c']);
    pool.sent[1]!.answer(new Error('Connection terminated unexpectedly'));
    assert.deepEqual(await Promise.all(outcomes), ['Connection terminated unexpectedly', 'Connection terminated unexpectedly']);
    assert.equal(pool.sent.length, 2);
    assert.deepEqual(pool.released, [false, true], 'the broken connection is not reused');
  });

  test('a connection reset (a socket error, which carries a code too) is not PostgreSQL refusing: nothing is sent again', async () => {
    const { pool, outcomes } = await secondTransaction(['b', 'c']);
    pool.sent[1]!.answer(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    assert.deepEqual(await Promise.all(outcomes), ['read ECONNRESET', 'read ECONNRESET']);
    await settle();
    assert.equal(pool.sent.length, 2, 'the transaction may have committed: sending its writes again could apply them twice');
    assert.deepEqual(pool.released, [false, true]);
  });
});

/** A node's write store over a fake pool, its local copy holding the record `old` for every entry; its applier never applies. */
function fakeNode(pool: ReturnType<typeof fakePool>): PostgresRecord {
  const applier = {
    slot: 'test', clock: 0, lastContact: Date.now(), changedSince: () => false,
    waitFor: () => ({ done: new Promise<boolean>(() => {}), cancel: () => {} }),
  } as unknown as Applier;
  const local = { records: async (keys: readonly string[]) => keys.map(() => record('old')) };
  return new PostgresRecord(pool as unknown as pg.Pool, applier, local, { log: { warn: () => {} }, maxStalenessMillis: 60_000 });
}

/** A write of entry `key` through the node (its outcome: 'ok' or the error). */
function write(node: PostgresRecord, key: string): Promise<unknown> {
  const held = { keys: new Set([key]), since: 0, tryAdd: () => false };
  return node.around([key], () => node.commit([{ type: 'put', key: entryKey(key), value: record('new') }], held), held).then(() => 'ok', (error: unknown) => error);
}

const connectionReset = (): Error & { code?: string } => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

test('a node\'s write whose connection is reset during COMMIT answers that it may or may not be stored', async () => {
  const pool = fakePool();
  const outcome = write(fakeNode(pool), 'a');
  await settle();
  pool.sent[0]!.answer(connectionReset());
  const error = await outcome;
  assert.ok(error instanceof DirectoryError, String(error));
  assert.equal(error.codeName, 'other', error.message);
  assert.match(error.message, /may or may not be stored/);
});

test('a locked-first write whose connection is reset during COMMIT hands that connection back as broken', async () => {
  const pool = fakePool();
  const node = fakeNode(pool);
  const first = write(node, 'a');
  await settle();
  pool.sent[0]!.answer(refused(STALE_ROW)); // the copy was behind: the entry's writes lock first for a while
  assert.ok((await first) instanceof StaleCopy);
  const second = write(node, 'a');
  await settle();
  assert.match(pool.sent[1]!.text, /^BEGIN; /, 'locked first');
  pool.sent[1]!.answer(undefined, [{}, { rows: [{ key: 'a', digest: createHash('sha256').update(record('old')).digest('hex') }] }]);
  await settle();
  await settle();
  assert.match(pool.sent[2]!.text, /COMMIT$/);
  pool.sent[2]!.answer(connectionReset());
  const error = await second;
  assert.ok(error instanceof DirectoryError && error.codeName === 'other', String(error));
  assert.deepEqual(pool.released, [false, true], 'the reset connection is not handed out again');
});

test('a node\'s write tokens differ from its previous process\'s: a write of the last process, replayed after a restart, resolves no new write', async () => {
  const pool = fakePool();
  const earlier = fakeNode(pool);
  const restarted = fakeNode(pool);
  void write(earlier, 'a');
  void write(restarted, 'b');
  await settle();
  const [before, after] = pool.sent.map((sent) => tokensOf(sent.text));
  assert.equal(before!.length, 1);
  assert.notDeepEqual(after, before);
  assert.match(after![0]!, /^test:/, 'the slot\'s name starts it');
});

test('transactionText: one lock of every write\'s entries in key order, their tokens, their rows in one statement each, COMMIT', () => {
  const insert: WriteCommit = {
    checked: ['uid=new,dc=x', 'dc=x'], digests: [undefined, 'd-parent'], token: 't-insert', local: new Map([['uid=new,dc=x', undefined]]),
    changes: { entries: new Map([['uid=new,dc=x', { record: record('r'), suffix: false }]]), settings: new Map() },
  };
  const text = transactionText([update('uid=b,dc=x'), insert, update('uid=a,dc=x')]);
  const statements = text.split('; ');
  assert.equal(statements[0], 'BEGIN');
  assert.equal(statements.at(-1), 'COMMIT');
  assert.match(statements[1]!, /leveldap_lock_equal\(ARRAY\['dc=x', 'uid=a,dc=x', 'uid=b,dc=x', 'uid=new,dc=x'\]::text\[\], ARRAY\['d-parent', 'd-uid=a,dc=x', 'd-uid=b,dc=x', NULL\]::text\[\], true\)/);
  assert.deepEqual(tokensOf(statements[2]!), ['t-uid=b,dc=x', 't-insert', 't-uid=a,dc=x']);
  assert.equal(text.split('pg_logical_emit_message').length, 2, 'one message carries every token');
  assert.equal(statements.filter((statement) => statement.startsWith('UPDATE')).length, 1);
  assert.match(text, /UPDATE .*'uid=b,dc=x'.*'uid=a,dc=x'/);
  assert.match(text, /INSERT INTO leveldap_entries \(key, parent, record\) VALUES \('uid=new,dc=x', /);
  assert.equal(statements.length, 6);
});
