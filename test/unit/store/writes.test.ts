/**
 * The store's online write path (src/store/writes.ts, modification.ts): modify, delete, rename
 * and add with their result codes; indexes, one-level index and operational attributes kept
 * consistent (checked against the raw LevelDB keys); all-or-nothing modifies; concurrent writes
 * to one entry losing nothing; parent deletes racing child adds leaving no orphans.
 */
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  addEntry, deleteEntry, modifyEntry, parseDn, renameEntry, values, DirectoryError, DirectoryStore,
  type Entry, type IndexHint, type Modification,
} from '../../../src/store/index.js';
import { KeyedMutex, SharedSlots, slotOf } from '../../../src/store/mutex.js';
import { Worker } from 'node:worker_threads';
import { BASE, PEOPLE, assertConsistent, dns, entry, person, rejectsWith, tempDir } from '../../helpers/store.js';

const PEOPLE_DN = 'ou=People,dc=example,dc=com';
const GROUPS_DN = 'ou=Groups,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE_DN}`;
const ADMIN = { actor: 'cn=admin' };
const text = (found: Entry | undefined, name: string): string[] => (found ? values(found, name).map((v) => v.toString()) : []);
const change = (op: Modification['op'], attribute: string, ...vals: string[]): Modification => ({ op, attribute, values: vals.map((v) => Buffer.from(v)) });

const byCn = (value: string): IndexHint => ({ equality: { attribute: 'cn', value: Buffer.from(value) } });
const byUid = (value: string): IndexHint => ({ equality: { attribute: 'uid', value: Buffer.from(value) } });

describe('store writes', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  beforeEach(async () => {
    dir = await tempDir('leveldap-writes-');
    store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await store.add(PEOPLE, ADMIN);
    await store.add(entry(GROUPS_DN, { objectClass: 'organizationalUnit', ou: 'Groups' }), ADMIN);
    // uidNumber on an inetOrgPerson needs a class that allows it (writes are schema-checked)
    const classes = ['top', 'person', 'organizationalPerson', 'inetOrgPerson', 'extensibleObject'];
    for (let n = 0; n < 5; n += 1) await store.add(person(n, { objectClass: classes, uidNumber: String(1000 + n) }), ADMIN);
  });

  afterEach(async () => {
    await store.close();
    await assertConsistent(dir.path, store.indexed);
    await dir.remove();
  });

  describe('modify', () => {
    test('add, delete and replace values; the indexes follow (new values found, old ones not)', async () => {
      const dn = parseDn(userDn(1));
      await modifyEntry(store, dn, [change('replace', 'cn', 'Alice Liddell'), change('add', 'mail', 'alice@example.com')], ADMIN);
      await modifyEntry(store, dn, [change('delete', 'mail', 'USER.1@EXAMPLE.COM')], ADMIN);
      const found = await store.get(dn);
      assert.deepEqual(text(found, 'cn'), ['Alice Liddell']);
      assert.deepEqual(text(found, 'mail'), ['alice@example.com']);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byCn('alice liddell')), [userDn(1)]);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byCn('User 1')), []);
      const byMail = (value: string): IndexHint => ({ equality: { attribute: 'mail', value: Buffer.from(value) } });
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byMail('user.1@example.com')), []);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byMail('alice@example.com')), [userDn(1)]);
    });

    test('deleting thousands of values in one request: each one named goes, the rest stay, in order; one named twice fails', async () => {
      const dn = parseDn(userDn(3));
      const many = Array.from({ length: 5000 }, (_, i) => `street ${i}`);
      await modifyEntry(store, dn, [change('add', 'street', ...many)], ADMIN);
      const odd = many.filter((_, i) => i % 2 === 1);
      await modifyEntry(store, dn, [change('delete', 'street', ...odd.map((value) => value.toUpperCase()))], ADMIN);
      assert.deepEqual(text(await store.get(dn), 'street'), many.filter((_, i) => i % 2 === 0));
      await rejectsWith(16, modifyEntry(store, dn, [change('delete', 'street', 'street 0', 'STREET 0')], ADMIN), /no such value/);
      assert.equal(text(await store.get(dn), 'street').length, 2500, 'a refused modify changes nothing');
    });

    test('modifiersName and modifyTimestamp change; creatorsName, createTimestamp and entryUUID stay', async () => {
      const before = await store.get(userDn(2));
      const after = await modifyEntry(store, parseDn(userDn(2)), [change('replace', 'description', 'x')], { actor: 'uid=someone,dc=example,dc=com' });
      assert.deepEqual(text(after, 'modifiersName'), ['uid=someone,dc=example,dc=com']);
      assert.equal(text(after, 'modifyTimestamp').length, 1);
      assert.match(text(after, 'modifyTimestamp')[0]!, /^\d{14}Z$/);
      for (const kept of ['creatorsName', 'createTimestamp', 'entryUUID']) assert.deepEqual(text(after, kept), text(before, kept), kept);
      assert.deepEqual(text(await store.get(userDn(2)), 'modifiersName'), ['uid=someone,dc=example,dc=com']);
    });

    test('the result codes of RFC 4511 and RFC 4525, worded as OpenLDAP words them', async () => {
      const dn = parseDn(userDn(1));
      const modify = (...changes: Modification[]) => modifyEntry(store, dn, changes, ADMIN);
      await rejectsWith(16, modify(change('delete', 'description', 'nothing')), /no such attribute/);
      await rejectsWith(16, modify(change('delete', 'mail', 'other@example.com')), /no such value/);
      await rejectsWith(20, modify(change('add', 'cn', 'user 1')), /value #0 already exists/);
      await rejectsWith(20, modify(change('add', 'title', 'a', 'A')), /value #1 provided more than once/);
      await rejectsWith(20, modify(change('replace', 'title', 'a', 'A')), /provided more than once/);
      await rejectsWith(2, modify(change('add', 'title')), /no values/);
      await rejectsWith(67, modify(change('delete', 'uid', 'user.1')), /RDN/);
      await rejectsWith(67, modify(change('replace', 'uid', 'other')), /RDN/);
      await rejectsWith(67, modify(change('delete', 'uid')), /RDN/);
      await rejectsWith(65, modify(change('delete', 'objectClass')), /objectClass/);
      await rejectsWith(65, modify(change('replace', 'objectClass')), /objectClass/);
      await rejectsWith(19, modify(change('replace', 'entryUUID', 'x')), /no user modification/);
      await rejectsWith(19, modify(change('delete', 'modifyTimestamp')), /no user modification/);
      await rejectsWith(17, modify(change('add', 'bad name', 'x')), /attribute description invalid/);
      await rejectsWith(21, modify(change('replace', 'uidNumber', '12a')), /invalid per syntax/);
      await rejectsWith(32, modifyEntry(store, parseDn(`uid=nobody,${PEOPLE_DN}`), [change('add', 'title', 'x')], ADMIN), /does not exist/, PEOPLE_DN);
      await rejectsWith(32, modifyEntry(store, parseDn('uid=x,ou=Nowhere,dc=example,dc=com'), [change('add', 'title', 'x')], ADMIN), undefined, 'dc=example,dc=com');
      await rejectsWith(53, modifyEntry(store, [], [change('add', 'title', 'x')], ADMIN));
    });

    test('replace with no values removes the attribute, and is no error when it is absent', async () => {
      const dn = parseDn(userDn(1));
      await modifyEntry(store, dn, [change('replace', 'mail'), change('replace', 'title')], ADMIN);
      assert.deepEqual(text(await store.get(dn), 'mail'), []);
    });

    test('attribute options make separate attributes: deleting cn leaves cn;lang-en', async () => {
      const dn = parseDn(userDn(1));
      await modifyEntry(store, dn, [change('add', 'cn;lang-en', 'English Name')], ADMIN);
      await modifyEntry(store, dn, [change('add', 'cn', 'Second')], ADMIN);
      await modifyEntry(store, dn, [change('delete', 'cn', 'Second')], ADMIN);
      const found = await store.get(dn);
      assert.deepEqual(found?.attributes.filter((a) => a.name === 'cn;lang-en').flatMap((a) => a.values.map(String)), ['English Name']);
    });

    test('a modify is all or nothing: a failing change leaves the entry and its indexes as they were', async () => {
      const dn = parseDn(userDn(3));
      const before = await store.get(dn);
      await rejectsWith(16, modifyEntry(store, dn, [change('replace', 'cn', 'Renamed'), change('delete', 'description', 'x')], ADMIN));
      assert.deepEqual(await store.get(dn), before);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byCn('Renamed')), []);
    });

    test('increment adds to every value of an INTEGER attribute; refusals as OpenLDAP', async () => {
      const dn = parseDn(userDn(1));
      await modifyEntry(store, dn, [change('increment', 'uidNumber', '5')], ADMIN);
      await modifyEntry(store, dn, [change('increment', 'uidNumber', '-2')], ADMIN);
      assert.deepEqual(text(await store.get(dn), 'uidNumber'), ['1004']);
      await modifyEntry(store, dn, [change('replace', 'uidNumber', '9007199254740993'), change('increment', 'uidNumber', '1')], ADMIN);
      assert.deepEqual(text(await store.get(dn), 'uidNumber'), ['9007199254740994'], 'no floating point rounding');
      await rejectsWith(19, modifyEntry(store, dn, [change('increment', 'description', '1')], ADMIN), /inappropriate for increment/);
      await rejectsWith(19, modifyEntry(store, dn, [change('increment', 'employeeNumber', '1')], ADMIN), /inappropriate for increment/);
      await rejectsWith(21, modifyEntry(store, dn, [change('increment', 'uidNumber', 'one')], ADMIN), /invalid per syntax/);
      await rejectsWith(2, modifyEntry(store, dn, [change('increment', 'uidNumber', '1', '2')], ADMIN), /single value/);
      await rejectsWith(2, modifyEntry(store, dn, [change('increment', 'uidNumber')], ADMIN), /single value/);
      await rejectsWith(16, modifyEntry(store, dn, [change('increment', 'gidNumber', '1')], ADMIN), /no such attribute/);
    });

    test('a check run under the lock can refuse the change', async () => {
      const dn = parseDn(userDn(1));
      const refuse = () => { throw new DirectoryError('unwillingToPerform', 'no'); };
      await rejectsWith(53, modifyEntry(store, dn, [change('replace', 'description', 'x')], { ...ADMIN, check: refuse }));
      assert.deepEqual(text(await store.get(dn), 'description'), []);
    });
  });

  describe('delete', () => {
    test('a leaf goes with its index keys and its one-level key', async () => {
      await deleteEntry(store, parseDn(userDn(4)));
      assert.equal(await store.get(userDn(4)), undefined);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byUid('user.4')), []);
      assert.equal((await dns(store, PEOPLE_DN, 'one')).length, 4);
      assert.equal((await dns(store, PEOPLE_DN, 'sub', { present: 'uid' })).length, 4);
    });

    test('a parent is refused (notAllowedOnNonLeaf); a missing entry is noSuchObject with matchedDN', async () => {
      await rejectsWith(66, deleteEntry(store, parseDn(PEOPLE_DN)), /subordinate/);
      await rejectsWith(32, deleteEntry(store, parseDn(`uid=gone,${PEOPLE_DN}`)), undefined, PEOPLE_DN);
      await deleteEntry(store, parseDn(GROUPS_DN));
      assert.equal(await store.hasChildren('dc=example,dc=com'), true);
      for (let n = 0; n < 5; n += 1) await deleteEntry(store, parseDn(userDn(n)));
      assert.equal(await store.hasChildren(PEOPLE_DN), false);
      await deleteEntry(store, parseDn(PEOPLE_DN));
    });
  });

  describe('rename (modify DN)', () => {
    test('a new RDN: the old DN is gone, indexes and one-level index follow; deleteoldrdn removes the old value', async () => {
      const after = await renameEntry(store, parseDn(userDn(1)), { newRdn: parseDn('uid=alice')[0]!, deleteOldRdn: true }, ADMIN);
      assert.equal(after.dn, `uid=alice,${PEOPLE_DN}`);
      assert.equal(await store.get(userDn(1)), undefined);
      const found = await store.get(`UID=Alice,${PEOPLE_DN}`);
      assert.deepEqual(text(found, 'uid'), ['alice']);
      assert.deepEqual(text(found, 'modifiersName'), ['cn=admin']);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byUid('user.1')), []);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byUid('alice')), [`uid=alice,${PEOPLE_DN}`]);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byCn('User 1')), [`uid=alice,${PEOPLE_DN}`], 'other index keys move with the entry');
      assert.ok((await dns(store, PEOPLE_DN, 'one')).includes(`uid=alice,${PEOPLE_DN}`));
    });

    test('without deleteoldrdn the old RDN value stays; a new RDN on another attribute adds its value', async () => {
      await renameEntry(store, parseDn(userDn(2)), { newRdn: parseDn('cn=Second User')[0]!, deleteOldRdn: false }, ADMIN);
      const found = await store.get(`cn=Second User,${PEOPLE_DN}`);
      assert.deepEqual(text(found, 'uid'), ['user.2']);
      assert.deepEqual(text(found, 'cn').sort(), ['Second User', 'User 2']);
    });

    test('a new superior moves a leaf; the one-level index of both parents follows', async () => {
      await renameEntry(store, parseDn(userDn(3)), { newRdn: parseDn('uid=user.3')[0]!, deleteOldRdn: true, newSuperior: parseDn(GROUPS_DN) }, ADMIN);
      assert.deepEqual(await dns(store, GROUPS_DN, 'one'), [`uid=user.3,${GROUPS_DN}`]);
      assert.ok(!(await dns(store, PEOPLE_DN, 'one')).includes(userDn(3)));
      assert.deepEqual(await dns(store, 'dc=example,dc=com', 'sub', byUid('user.3')), [`uid=user.3,${GROUPS_DN}`]);
    });

    test('a change of case only renames the entry in place', async () => {
      await renameEntry(store, parseDn(userDn(1)), { newRdn: parseDn('uid=USER.1')[0]!, deleteOldRdn: true }, ADMIN);
      const found = await store.get(userDn(1));
      assert.equal(found?.dn, `uid=USER.1,${PEOPLE_DN}`);
      assert.deepEqual(text(found, 'uid'), ['USER.1']);
    });

    test('refusals: target exists (68), new superior missing (32), below itself or a naming context (53)', async () => {
      const rename = (dn: string, rdn: string, newSuperior?: string) => renameEntry(store, parseDn(dn), {
        newRdn: parseDn(rdn)[0]!, deleteOldRdn: true, ...(newSuperior !== undefined && { newSuperior: parseDn(newSuperior) }),
      }, ADMIN);
      await rejectsWith(68, rename(userDn(1), 'uid=user.2'), /already exists/);
      await rejectsWith(32, rename(userDn(1), 'uid=user.1', 'ou=Nowhere,dc=example,dc=com'), /new superior/, 'dc=example,dc=com');
      await rejectsWith(32, rename(`uid=ghost,${PEOPLE_DN}`, 'uid=spirit'), undefined, PEOPLE_DN);
      await rejectsWith(53, rename(PEOPLE_DN, 'ou=x', userDn(1)), /below itself/);
      await rejectsWith(53, rename(userDn(1), 'uid=x', userDn(1)), /below itself/);
      await rejectsWith(53, rename('dc=example,dc=com', 'dc=sample'), /naming context/);
      await rejectsWith(53, rename(userDn(1), 'uid=x', ''), /root/);
      await rejectsWith(19, rename(userDn(1), 'entryUUID=x'), /no user modification/);
      assert.ok(await store.get(userDn(1)));
    });
  });

  describe('add (as a client asks)', () => {
    test('the RDN value is added when missing; operational attributes are the server\'s', async () => {
      await addEntry(store, entry(`uid=new,${PEOPLE_DN}`, { objectClass: 'account' }), { actor: 'cn=admin' });
      const found = await store.get(`uid=new,${PEOPLE_DN}`);
      assert.deepEqual(text(found, 'uid'), ['new']);
      assert.deepEqual(text(found, 'creatorsName'), ['cn=admin']);
      assert.equal(text(found, 'entryUUID').length, 1);
      assert.deepEqual(await dns(store, PEOPLE_DN, 'sub', byUid('new')), [`uid=new,${PEOPLE_DN}`]);
    });

    test('an attribute named twice is merged; refusals: 20, 19, 65, 32 with matchedDN, 68, 21', async () => {
      await addEntry(store, { dn: `uid=twice,${PEOPLE_DN}`, attributes: [
        { name: 'objectClass', values: [Buffer.from('account')] }, { name: 'description', values: [Buffer.from('a')] },
        { name: 'description', values: [Buffer.from('b')] },
      ] }, ADMIN);
      assert.deepEqual(text(await store.get(`uid=twice,${PEOPLE_DN}`), 'description'), ['a', 'b']);
      const add = (dn: string, pairs: Record<string, string | string[]>) => addEntry(store, entry(dn, pairs), ADMIN);
      await rejectsWith(20, add(`uid=a,${PEOPLE_DN}`, { objectClass: 'account', description: ['x', 'X'] }), /more than once/);
      await rejectsWith(19, add(`uid=a,${PEOPLE_DN}`, { objectClass: 'account', createTimestamp: '20200101000000Z' }), /no user modification/);
      await rejectsWith(65, add(`uid=a,${PEOPLE_DN}`, { uid: 'a' }), /objectClass/);
      await rejectsWith(32, add('uid=a,ou=Nowhere,dc=example,dc=com', { objectClass: 'account' }), /parent/, 'dc=example,dc=com');
      await rejectsWith(68, add(userDn(1), { objectClass: 'account' }), /already exists/);
      await rejectsWith(21, add(`uid=a,${PEOPLE_DN}`, { objectClass: 'account', uidNumber: 'x' }), /syntax/);
      await rejectsWith(32, add('o=elsewhere', { objectClass: 'organization' }), /naming context/);
      await addEntry(store, entry('o=elsewhere', { objectClass: 'organization' }), { ...ADMIN, allowNewSuffix: true });
      assert.deepEqual((await store.suffixes()).sort(), ['dc=example,dc=com', 'o=elsewhere']);
      await deleteEntry(store, parseDn('o=elsewhere'));
      assert.deepEqual(await store.suffixes(), ['dc=example,dc=com']);
    });
  });

  test('add, modify, rename and delete each write one batch, synced to disk before they resolve', async () => {
    const syncs: boolean[] = [];
    const write = store.write.bind(store);
    store.write = (ops, sync) => { syncs.push(sync); return write(ops, sync); };
    await addEntry(store, entry(`uid=synced,${PEOPLE_DN}`, { objectClass: 'account' }), ADMIN);
    await modifyEntry(store, parseDn(`uid=synced,${PEOPLE_DN}`), [change('add', 'description', 'x')], ADMIN);
    await renameEntry(store, parseDn(`uid=synced,${PEOPLE_DN}`), { newRdn: parseDn('uid=moved')[0]!, deleteOldRdn: true }, ADMIN);
    await deleteEntry(store, parseDn(`uid=moved,${PEOPLE_DN}`));
    assert.deepEqual(syncs, [true, true, true, true]);
  });

  describe('concurrency', () => {
    test('200 concurrent increments of one attribute: none lost', async () => {
      const dn = parseDn(userDn(0));
      await Promise.all(Array.from({ length: 200 }, () => modifyEntry(store, dn, [change('increment', 'uidNumber', '1')], ADMIN)));
      assert.deepEqual(text(await store.get(dn), 'uidNumber'), ['1200']);
      assert.equal(store.locks.size, 0, 'no lock stays behind');
    });

    test('200 concurrent adds of distinct values to one entry: none lost', async () => {
      const dn = parseDn(userDn(1));
      await Promise.all(Array.from({ length: 200 }, (_, i) => modifyEntry(store, dn, [change('add', 'description', `value ${i}`)], ADMIN)));
      assert.equal(text(await store.get(dn), 'description').length, 200);
    });

    test('deleting a parent while children are added: never an orphan', async () => {
      for (let round = 0; round < 20; round += 1) {
        const parent = `ou=Team${round},dc=example,dc=com`;
        await store.add(entry(parent, { objectClass: 'organizationalUnit', ou: `Team${round}` }), ADMIN);
        const outcomes = await Promise.allSettled([
          addEntry(store, entry(`uid=member,${parent}`, { objectClass: 'account' }), ADMIN),
          deleteEntry(store, parseDn(parent)),
        ]);
        const parentLeft = await store.get(parent);
        const childLeft = await store.get(`uid=member,${parent}`);
        assert.ok(!(childLeft && !parentLeft), `round ${round}: a child without its parent`);
        assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length >= 1, true);
        if (childLeft) await deleteEntry(store, parseDn(`uid=member,${parent}`));
        if (parentLeft) await deleteEntry(store, parseDn(parent));
      }
    });
  });
});

describe('KeyedMutex', () => {
  test('holders of one key run one at a time, in arrival order; other keys do not wait', async () => {
    const locks = new KeyedMutex();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = locks.run(['a'], () => new Promise<void>((resolve) => { order.push('a1 start'); releaseFirst = () => { order.push('a1 end'); resolve(); }; }));
    const second = locks.run(['a'], async () => { order.push('a2'); });
    await locks.run(['b'], async () => { order.push('b'); });
    releaseFirst();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['a1 start', 'b', 'a1 end', 'a2']);
    assert.equal(locks.size, 0);
  });

  test('a holder of several keys cannot deadlock with another taking them in the other order', async () => {
    const locks = new KeyedMutex();
    let count = 0;
    await Promise.all(Array.from({ length: 50 }, (_, i) => locks.run(i % 2 ? ['x', 'y'] : ['y', 'x'], async () => {
      count += 1;
      await new Promise((resolve) => setImmediate(resolve));
    })));
    assert.equal(count, 50);
    assert.equal(locks.size, 0);
  });

  test('a holder takes more keys at once when each is free (all or none), never waiting, and releases them with the rest', async () => {
    const locks = new KeyedMutex();
    let releaseOther!: () => void;
    const other = locks.run(['busy'], () => new Promise<void>((resolve) => { releaseOther = resolve; }));
    await locks.run(['a'], async (held) => {
      assert.equal(held.tryAdd(['b', 'busy']), false, 'one of them is held: none taken');
      assert.equal(locks.size, 2, 'b was not taken');
      assert.equal(held.tryAdd(['a', 'b', 'c']), true);
      let waited = false;
      const waiter = locks.run(['c'], async () => { waited = true; });
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(waited, false, 'c is held');
      assert.equal(held.tryAdd(['c']), true, 'already held');
      void waiter;
    });
    assert.equal(await locks.run(['b', 'c'], async () => 'free again'), 'free again');
    releaseOther();
    await other;
    assert.equal(locks.size, 0);
  });

  test('a failing holder releases its keys', async () => {
    const locks = new KeyedMutex();
    await assert.rejects(locks.run(['k'], async () => { throw new Error('boom'); }), /boom/);
    assert.equal(await locks.run(['k'], async () => 'next'), 'next');
    assert.equal(locks.size, 0);
  });
});

/**
 * Two worker threads each run ROUNDS read-wait-write increments of one number in shared memory,
 * under the same key: with the shared slots none is lost (without them, most would be).
 */
const RACER = `
  const { workerData, parentPort } = require('node:worker_threads');
  import(workerData.mutex).then(async ({ KeyedMutex, SharedSlots }) => {
    const locks = new KeyedMutex(workerData.locked ? new SharedSlots(workerData.slots) : undefined);
    const counter = new Int32Array(workerData.counter);
    parentPort.postMessage('ready');
    Atomics.wait(counter, 1, 0); // both start together
    const alive = setInterval(() => {}, 1000); // a pending Atomics.waitAsync alone does not keep a thread running
    for (let i = 0; i < workerData.rounds; i += 1) {
      await locks.run(['uid=x'], async () => {
        const seen = counter[0];
        await new Promise((resolve) => setTimeout(resolve, 1));
        counter[0] = seen + 1;
      });
    }
    clearInterval(alive);
    parentPort.postMessage('done');
  });
`;

async function race(locked: boolean, rounds: number): Promise<{ count: number; slots: SharedSlots }> {
  const slots = new SharedSlots();
  const counter = new SharedArrayBuffer(8);
  const mutex = new URL('../../../src/store/mutex.js', import.meta.url).href;
  const workers = [0, 1].map(() => new Worker(RACER, { eval: true, workerData: { mutex, slots: slots.buffer, counter, rounds, locked } }));
  const next = (worker: Worker) => new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  await Promise.all(workers.map(next));
  const go = new Int32Array(counter);
  Atomics.store(go, 1, 1);
  Atomics.notify(go, 1);
  await Promise.all(workers.map(next));
  await Promise.all(workers.map((worker) => worker.terminate()));
  return { count: new Int32Array(counter)[0]!, slots };
}

describe('SharedSlots (entry locks across threads)', () => {
  test('two threads incrementing under one key lose nothing; every slot is free afterwards', async () => {
    const { count, slots } = await race(true, 100);
    assert.equal(count, 200);
    assert.equal(slots.held, 0);
  });

  test('the same race without the shared slots loses increments (the test can fail)', async () => {
    const { count } = await race(false, 100);
    assert.ok(count < 200, `expected lost updates without shared locks, got ${count}`);
  });

  test('the slots of a thread that died holding them are freed, and a waiting writer goes on', async () => {
    const buffer = SharedSlots.allocate();
    const dead = new SharedSlots(buffer, 2);
    const living = new SharedSlots(buffer, 1);
    await dead.acquire(['uid=a', 'uid=b']); // never released: its thread "died"
    const alive = setInterval(() => {}, 1000); // a pending Atomics.waitAsync alone keeps nothing running
    try {
      let got = false;
      const waiting = living.acquire(['uid=a']).then((release) => { got = true; release(); });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(got, false, 'the slot is held');
      assert.equal(living.freeOwnedBy(2), 2);
      await waiting;
      assert.equal(got, true);
      assert.equal(living.held, 0);
      assert.equal(living.freeOwnedBy(2), 0, 'nothing left to free');
    } finally {
      clearInterval(alive);
    }
  });

  test('a holder takes more slots at once only when they are free; slots it holds count as its own', async () => {
    const buffer = SharedSlots.allocate();
    const mine = new SharedSlots(buffer, 1);
    const theirs = new SharedSlots(buffer, 2);
    const releaseTheirs = await theirs.acquire(['uid=b']);
    const held = new Set<number>([slotOf('uid=a')]);
    const releaseMine = await mine.acquire(['uid=a']);
    assert.equal(mine.tryAcquire(['uid=c', 'uid=b'], held), undefined, 'uid=b is another thread\'s');
    assert.equal(mine.held, 2, 'uid=c was not kept');
    const more = mine.tryAcquire(['uid=a', 'uid=c'], held);
    assert.ok(more, 'uid=a is held already, uid=c is free');
    assert.ok(held.has(slotOf('uid=c')));
    more();
    releaseMine();
    releaseTheirs();
    assert.equal(mine.held, 0);
  });

  test('keys that share a slot, taken together and in either order, do not deadlock within a thread', async () => {
    const slots = new SharedSlots();
    const locks = new KeyedMutex(slots);
    let count = 0;
    const first = 'k0';
    let twin = 1;
    while (slotOf(`k${twin}`) !== slotOf(first)) twin += 1;
    const keys = [first, `k${twin}`, ...Array.from({ length: 62 }, (_, i) => `other${i}`)];
    await Promise.all(Array.from({ length: 200 }, (_, i) => locks.run([keys[i % 64]!, keys[(i * 7) % 64]!, keys[(i * 13) % 64]!], async () => {
      count += 1;
      await new Promise((resolve) => setImmediate(resolve));
    })));
    assert.equal(count, 200);
    assert.equal(slots.held, 0);
  });
});
