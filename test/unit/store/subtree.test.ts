/**
 * Modify DN of a non-leaf entry (src/store/subtree.ts, through renameEntry in writes.ts): a
 * subtree renamed and moved with every entry, index, one-level, naming-context and membership
 * key under its new DN (the raw keys checked after every test); groups inside and outside the
 * subtree naming the new DNs, memberOf following; the --max-subtree-rename and
 * --max-refint-groups refusals changing nothing; one synced batch; and adds, deletes and
 * renames racing the move never leaving an orphan or an entry under the old name.
 */
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  DirectoryStore, addEntry, deleteEntry, dnKey, parseDn, renameEntry, values,
  type DirectoryError, type Entry, type IndexHint,
} from '../../../src/store/index.js';
import { BASE, PEOPLE, assertConsistent, dns, entry, person, rejectsWith, tempDir } from '../../helpers/store.js';

const PEOPLE_DN = 'ou=People,dc=example,dc=com';
const GROUPS_DN = 'ou=Groups,dc=example,dc=com';
const SALES = 'ou=Sales,dc=example,dc=com';
const REVENUE = 'ou=Revenue,dc=example,dc=com';
const ADMIN = { actor: 'cn=admin' };
const key = (dn: string) => dnKey(parseDn(dn));
const text = (found: Entry | undefined, name: string): string[] => (found ? values(found, name).map((v) => v.toString()) : []);
const unit = (name: string, parent: string) => entry(`ou=${name},${parent}`, { objectClass: 'organizationalUnit', ou: name });
const user = (uid: string, parent: string) => entry(`uid=${uid},${parent}`, {
  objectClass: ['inetOrgPerson'], uid, cn: `User ${uid}`, sn: 'Seller',
});
const group = (cn: string, parent: string, members: readonly string[]) => entry(`cn=${cn},${parent}`, {
  objectClass: 'groupOfNames', cn, member: [...members],
});
const byUid = (value: string): IndexHint => ({ equality: { attribute: 'uid', value: Buffer.from(value) } });

function rename(store: DirectoryStore, dn: string, rdn: string, newSuperior?: string, more: Record<string, unknown> = {}) {
  return renameEntry(store, parseDn(dn), { newRdn: parseDn(rdn)[0]!, deleteOldRdn: true, ...(newSuperior !== undefined && { newSuperior: parseDn(newSuperior) }) },
    { ...ADMIN, ...more });
}

/** A new database holding dc=example,dc=com, ou=People and ou=Groups. */
async function openTree(prefix: string): Promise<{ dir: Awaited<ReturnType<typeof tempDir>>; store: DirectoryStore }> {
  const dir = await tempDir(prefix);
  const store = await DirectoryStore.open(dir.path);
  await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
  await store.add(PEOPLE, ADMIN);
  await store.add(unit('Groups', 'dc=example,dc=com'), ADMIN);
  return { dir, store };
}

/** The groups naming an entry (their DNs as written), read from the r keys: its memberOf. */
async function memberOf(store: DirectoryStore, dn: string): Promise<string[]> {
  return (await store.memberships.direct(key(dn))).map((found) => found.dn).sort();
}

/** The members of a group read from its memberof keys (memberOf's index), as dnKeys. */
async function members(store: DirectoryStore, dn: string): Promise<string[]> {
  const found: string[] = [];
  for await (const batch of store.memberships.members([key(dn)])) found.push(...batch);
  return found.sort();
}

/**
 * ou=Sales: ou=East (uid=e0..e2), ou=West (uid=w0, w1, and ou=Deep with uid=d0), cn=team
 * (member e0, w0, d0 and user.1 of ou=People), cn=leads inside ou=East (member e1 and cn=team).
 * ou=Groups: cn=all (member e0, e1, w1, user.1, and ou=Sales itself).
 */
async function addSales(store: DirectoryStore, parent = 'dc=example,dc=com'): Promise<string> {
  const sales = `ou=Sales,${parent}`;
  const east = `ou=East,${sales}`;
  const west = `ou=West,${sales}`;
  const deep = `ou=Deep,${west}`;
  await store.add(unit('Sales', parent), ADMIN);
  for (const dn of [east, west]) await store.add(unit(dn.slice(3, dn.indexOf(',')), sales), ADMIN);
  await store.add(unit('Deep', west), ADMIN);
  for (const n of [0, 1, 2]) await store.add(user(`e${n}`, east), ADMIN);
  for (const n of [0, 1]) await store.add(user(`w${n}`, west), ADMIN);
  await store.add(user('d0', deep), ADMIN);
  await store.add(group('team', sales, [`uid=e0,${east}`, `uid=w0,${west}`, `uid=d0,${deep}`, `uid=user.1,${PEOPLE_DN}`]), ADMIN);
  await store.add(group('leads', east, [`uid=e1,${east}`, `cn=team,${sales}`]), ADMIN);
  return sales;
}

/** Every DN of the Sales tree below `sales`. */
function salesDns(sales: string): string[] {
  const east = `ou=East,${sales}`;
  const west = `ou=West,${sales}`;
  return [
    sales, east, west, `ou=Deep,${west}`, `uid=e0,${east}`, `uid=e1,${east}`, `uid=e2,${east}`, `uid=w0,${west}`, `uid=w1,${west}`,
    `uid=d0,ou=Deep,${west}`, `cn=team,${sales}`, `cn=leads,${east}`,
  ];
}

describe('modify DN of a subtree', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  beforeEach(async () => {
    ({ dir, store } = await openTree('leveldap-subtree-'));
    for (const n of [1, 2]) await store.add(person(n), ADMIN);
    await addSales(store);
    await store.add(group('all', GROUPS_DN, [`uid=e0,ou=East,${SALES}`, `uid=e1,ou=East,${SALES}`, `uid=w1,ou=West,${SALES}`, SALES, `uid=user.1,${PEOPLE_DN}`]), ADMIN);
  });

  afterEach(async () => {
    await store.close();
    await assertConsistent(dir.path, store.indexed);
    await dir.remove();
  });

  test('a new RDN: every entry of the subtree under its new DN, none under the old', async () => {
    const after = await rename(store, SALES, 'ou=Revenue');
    assert.equal(after.dn, REVENUE);
    assert.deepEqual(text(after, 'ou'), ['Revenue']);
    for (const dn of salesDns(SALES)) assert.equal(await store.get(dn), undefined, `${dn} is gone`);
    for (const dn of salesDns(REVENUE)) assert.equal((await store.get(dn))?.dn, dn, `${dn} is there, its DN as written`);
    assert.deepEqual(await dns(store, SALES, 'sub'), []);
    assert.deepEqual(await dns(store, REVENUE, 'sub'), salesDns(REVENUE).sort());
    const deep = await store.get(`uid=d0,ou=Deep,ou=West,${REVENUE}`);
    assert.deepEqual(text(deep, 'uid'), ['d0'], 'the values below are kept');
    assert.deepEqual(text(deep, 'modifiersName'), ['cn=admin']);
  });

  test('indexes: the moved entries are found under their new DNs, never under the old', async () => {
    await rename(store, SALES, 'ou=Revenue');
    assert.deepEqual(await dns(store, 'dc=example,dc=com', 'sub', byUid('d0')), [`uid=d0,ou=Deep,ou=West,${REVENUE}`]);
    assert.deepEqual(await dns(store, 'dc=example,dc=com', 'sub', byUid('e2')), [`uid=e2,ou=East,${REVENUE}`]);
    assert.deepEqual(await dns(store, SALES, 'sub', byUid('e2')), []);
    const sellers = await dns(store, 'dc=example,dc=com', 'sub', { equality: { attribute: 'sn', value: Buffer.from('seller') } });
    assert.equal(sellers.length, 6);
    assert.ok(sellers.every((dn) => dn.endsWith(REVENUE)), sellers.join(' '));
    const teams = await dns(store, 'dc=example,dc=com', 'sub', { equality: { attribute: 'member', value: Buffer.from(`uid=w0,ou=West,${REVENUE}`) } });
    assert.deepEqual(teams, [`cn=team,${REVENUE}`], 'the member index holds the rewritten value');
  });

  test('one-level searches at each level of the moved tree, and at both parents of a move', async () => {
    await rename(store, SALES, 'ou=Sales', PEOPLE_DN);
    const moved = `ou=Sales,${PEOPLE_DN}`;
    assert.ok(!(await dns(store, 'dc=example,dc=com', 'one')).includes(SALES), 'not a child of its old parent');
    assert.ok((await dns(store, PEOPLE_DN, 'one')).includes(moved), 'a child of its new parent');
    assert.deepEqual(await dns(store, moved, 'one'), [`cn=team,${moved}`, `ou=East,${moved}`, `ou=West,${moved}`].sort());
    assert.deepEqual(await dns(store, `ou=East,${moved}`, 'one'), [`cn=leads,ou=East,${moved}`, `uid=e0,ou=East,${moved}`, `uid=e1,ou=East,${moved}`, `uid=e2,ou=East,${moved}`].sort());
    assert.deepEqual(await dns(store, `ou=West,${moved}`, 'one'), [`ou=Deep,ou=West,${moved}`, `uid=w0,ou=West,${moved}`, `uid=w1,ou=West,${moved}`].sort());
    assert.deepEqual(await dns(store, `ou=Deep,ou=West,${moved}`, 'one'), [`uid=d0,ou=Deep,ou=West,${moved}`]);
    assert.equal(await store.hasChildren(SALES), false);
    assert.equal(await store.hasChildren(`ou=West,${SALES}`), false);
  });

  test('memberships: groups outside and inside name the new DNs, memberOf and (memberOf=G) follow', async () => {
    await rename(store, SALES, 'ou=Revenue', undefined, { actor: 'cn=mover' });
    const all = await store.get(`cn=all,${GROUPS_DN}`);
    assert.deepEqual(text(all, 'member'), [`uid=e0,ou=East,${REVENUE}`, `uid=e1,ou=East,${REVENUE}`, `uid=w1,ou=West,${REVENUE}`, REVENUE, `uid=user.1,${PEOPLE_DN}`]);
    assert.deepEqual(text(all, 'modifiersName'), ['cn=mover'], 'referential integrity writes as the mover');
    const team = await store.get(`cn=team,${REVENUE}`);
    assert.deepEqual(text(team, 'member'), [`uid=e0,ou=East,${REVENUE}`, `uid=w0,ou=West,${REVENUE}`, `uid=d0,ou=Deep,ou=West,${REVENUE}`, `uid=user.1,${PEOPLE_DN}`],
      'a group inside keeps its members right, the one outside the subtree untouched');
    assert.deepEqual(text(await store.get(`cn=leads,ou=East,${REVENUE}`), 'member'), [`uid=e1,ou=East,${REVENUE}`, `cn=team,${REVENUE}`]);
    assert.deepEqual(await memberOf(store, `uid=e0,ou=East,${REVENUE}`), [`cn=all,${GROUPS_DN}`, `cn=team,${REVENUE}`].sort());
    assert.deepEqual(await memberOf(store, `uid=e1,ou=East,${REVENUE}`), [`cn=all,${GROUPS_DN}`, `cn=leads,ou=East,${REVENUE}`].sort());
    assert.deepEqual(await memberOf(store, `cn=team,${REVENUE}`), [`cn=leads,ou=East,${REVENUE}`], 'a nested group inside');
    assert.deepEqual(await memberOf(store, REVENUE), [`cn=all,${GROUPS_DN}`], 'the renamed entry itself');
    assert.deepEqual(await memberOf(store, `uid=user.1,${PEOPLE_DN}`), [`cn=all,${GROUPS_DN}`, `cn=team,${REVENUE}`].sort(), 'an outside member of a moved group');
    assert.deepEqual(await memberOf(store, `uid=e0,ou=East,${SALES}`), [], 'nothing left under the old DN');
    assert.deepEqual(await members(store, `cn=team,${REVENUE}`), [
      `uid=e0,ou=East,${REVENUE}`, `uid=w0,ou=West,${REVENUE}`, `uid=d0,ou=Deep,ou=West,${REVENUE}`, `uid=user.1,${PEOPLE_DN}`,
    ].map(key).sort());
    assert.deepEqual(await members(store, `cn=team,${SALES}`), []);
  });

  test('a value that would repeat one the group holds for the new DN is dropped', async () => {
    await store.add(group('both', GROUPS_DN, [`uid=w0,ou=West,${SALES}`, `uid=w0,ou=West,ou=Revenue,dc=example,dc=com`]), ADMIN);
    await rename(store, SALES, 'ou=Revenue');
    assert.deepEqual(text(await store.get(`cn=both,${GROUPS_DN}`), 'member'), [`uid=w0,ou=West,${REVENUE}`]);
  });

  test('a change of case only respells every DN below, in place', async () => {
    await rename(store, SALES, 'ou=SALES');
    const upper = 'ou=SALES,dc=example,dc=com';
    assert.equal((await store.get(`uid=d0,ou=Deep,ou=West,${SALES}`))?.dn, `uid=d0,ou=Deep,ou=West,${upper}`);
    assert.deepEqual(text(await store.get(`cn=all,${GROUPS_DN}`), 'member').filter((value) => value.startsWith('uid=e0')), [`uid=e0,ou=East,${upper}`]);
    assert.equal((await dns(store, upper, 'sub')).length, salesDns(SALES).length);
  });

  test('a move under another subtree, and back: nothing lost, nothing left behind', async () => {
    await rename(store, SALES, 'ou=Sales', PEOPLE_DN);
    await rename(store, `ou=Sales,${PEOPLE_DN}`, 'ou=Sales', 'dc=example,dc=com');
    assert.deepEqual(await dns(store, SALES, 'sub'), salesDns(SALES).sort());
    assert.deepEqual(text(await store.get(`cn=all,${GROUPS_DN}`), 'member')[0], `uid=e0,ou=East,${SALES}`);
  });

  test('the refusals stay: target exists (68), new superior missing (32), below itself (53), a naming context (53)', async () => {
    await rejectsWith(68, rename(store, SALES, 'ou=People'), /already exists/);
    await rejectsWith(32, rename(store, SALES, 'ou=Sales', 'ou=Nowhere,dc=example,dc=com'), /new superior/);
    await rejectsWith(53, rename(store, SALES, 'ou=Sales', `ou=Deep,ou=West,${SALES}`), /below itself/);
    await rejectsWith(53, rename(store, SALES, 'ou=Sales', SALES), /below itself/);
    await rejectsWith(53, rename(store, 'dc=example,dc=com', 'dc=sample'), /naming context/);
    assert.deepEqual(await dns(store, SALES, 'sub'), salesDns(SALES).sort());
  });

  test('past --max-subtree-rename (the entries, the renamed one included) unwillingToPerform, nothing changed', async () => {
    const size = salesDns(SALES).length;
    await rejectsWith(53, rename(store, SALES, 'ou=Revenue', undefined, { maxSubtreeEntries: size - 1 }),
      new RegExp(`the subtree of ${SALES} holds more than ${size - 1} entries; a modify DN moves at most ${size - 1} \\(--max-subtree-rename\\)`));
    assert.deepEqual(await dns(store, SALES, 'sub'), salesDns(SALES).sort());
    assert.equal(text(await store.get(`cn=all,${GROUPS_DN}`), 'member')[0], `uid=e0,ou=East,${SALES}`);
    await rename(store, SALES, 'ou=Revenue', undefined, { maxSubtreeEntries: size });
    assert.equal(await store.get(SALES), undefined, 'exactly the limit is allowed');
    await rename(store, REVENUE, 'ou=Sales', undefined, { maxSubtreeEntries: 0 });
    assert.equal((await dns(store, SALES, 'sub')).length, size, '0: no limit');
  });

  test('past --max-refint-groups (groups outside naming DNs inside) adminLimitExceeded, nothing changed', async () => {
    await store.add(group('more', GROUPS_DN, [`uid=w1,ou=West,${SALES}`]), ADMIN);
    await rejectsWith(11, rename(store, SALES, 'ou=Revenue', undefined, { maxRefintGroups: 1 }),
      /ou=Sales,dc=example,dc=com and the entries below it are members of 2 groups; a delete or rename updates at most 1 for referential integrity \(--max-refint-groups\)/);
    assert.ok(await store.get(SALES));
    await rename(store, SALES, 'ou=Revenue', undefined, { maxRefintGroups: 2 });
  });

  test('the whole move is one write, synced before it resolves', async () => {
    const writes: { ops: number; sync: boolean }[] = [];
    const write = store.write.bind(store);
    store.write = (ops, sync) => { writes.push({ ops: ops.length, sync }); return write(ops, sync); };
    await rename(store, SALES, 'ou=Revenue');
    assert.equal(writes.length, 1);
    assert.equal(writes[0]!.sync, true);
    assert.ok(writes[0]!.ops > salesDns(SALES).length * 4, `${writes[0]!.ops} operations`);
  });

  test('an entry added below while the locks are being taken is locked and moved too; so is a child added under it meanwhile', async () => {
    const deep = `ou=Deep,ou=West,${SALES}`;
    const run = store.locks.run.bind(store.locks);
    const write = store.write.bind(store);
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
      setTimeout(resolve, 300);
    });
    let child: Promise<unknown> | undefined;
    let attempts = 0;
    store.locks.run = async (keys, critical) => {
      if (keys.length > 10) attempts += 1;
      if (!child && keys.length > 10) {
        // Between the rename's first read of the subtree and its locks: an entry is added, and
        // a child under it is being added, its write held until the rename writes (or 300 ms).
        await addEntry(store, user('late', deep), ADMIN);
        child = addEntry(store, user('child', `uid=late,${deep}`), { ...ADMIN, check: () => gate });
      }
      return run(keys, critical);
    };
    store.write = (ops, sync) => {
      if (ops.length > 50) openGate();
      return write(ops, sync);
    };
    await rename(store, SALES, 'ou=Revenue');
    await child;
    assert.equal(attempts, 2, 'the late entry\'s lock was held by the add below it: every lock taken again; the child\'s was free, taken at once');
    assert.deepEqual(await dns(store, SALES, 'sub'), [], 'nothing left under the old DN: no orphan');
    assert.ok(await store.get(`uid=late,ou=Deep,ou=West,${REVENUE}`), 'moved with its parent');
    assert.ok(await store.get(`uid=child,uid=late,ou=Deep,ou=West,${REVENUE}`), 'moved with its parent');
  });

  test('entries added below whose locks stay taken: busy (51) after a few attempts, nothing changed', async () => {
    const run = store.locks.run.bind(store.locks);
    let n = 0;
    store.locks.run = async (keys, critical) => {
      if (keys.length <= 10) return run(keys, critical);
      await addEntry(store, user(`late${n++}`, `ou=East,${SALES}`), ADMIN);
      return run(keys, (held) => critical({ ...held, tryAdd: () => false })); // as if a write to each new entry held its lock
    };
    await rejectsWith(51, rename(store, SALES, 'ou=Revenue'), /kept being added and written to below ou=Sales,dc=example,dc=com/);
    assert.equal(n, 5);
    assert.equal((await dns(store, SALES, 'sub')).length, salesDns(SALES).length + 5);
  });

  test('entries added below while the locks are being taken, their locks free: taken at once, no second attempt', async () => {
    const run = store.locks.run.bind(store.locks);
    let attempts = 0;
    store.locks.run = async (keys, critical) => {
      if (keys.length <= 10) return run(keys, critical);
      attempts += 1;
      for (let n = 0; n < 20; n += 1) await addEntry(store, user(`new${n}`, `ou=${n % 2 ? 'East' : 'West'},${SALES}`), ADMIN);
      return run(keys, critical);
    };
    await rename(store, SALES, 'ou=Revenue');
    assert.equal(attempts, 1);
    assert.equal((await dns(store, REVENUE, 'sub')).length, salesDns(SALES).length + 20);
    assert.equal(store.locks.size, 0);
  });
});

describe('modify DN of a subtree, racing other writes', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  beforeEach(async () => {
    ({ dir, store } = await openTree('leveldap-subtree-race-'));
  });

  afterEach(async () => {
    await store.close();
    await assertConsistent(dir.path, store.indexed);
    await dir.remove();
  });

  /** Entries whose parent is missing (the base is the only top entry). */
  async function orphans(): Promise<string[]> {
    const all = await dns(store, 'dc=example,dc=com', 'sub');
    const present = new Set(all.map(key));
    return all.filter((dn) => dn !== 'dc=example,dc=com' && !present.has(key(dn.slice(dn.indexOf(',') + 1))));
  }

  test('adds below the subtree during the move never leave an orphan: each is moved or refused', async () => {
    for (let round = 0; round < 8; round += 1) {
      const parent = round % 2 === 0 ? 'dc=example,dc=com' : PEOPLE_DN;
      const sales = await addSales(store, parent);
      for (let n = 0; n < 60; n += 1) await store.add(user(`x${n}`, `ou=${['East', 'West'][n % 2]},${sales}`), ADMIN);
      const before = (await dns(store, sales, 'sub')).length;
      const targets = [sales, `ou=East,${sales}`, `ou=West,${sales}`, `ou=Deep,ou=West,${sales}`];
      const adds = Array.from({ length: 40 }, async (_, n) => {
        for (let wait = 0; wait < n % 9; wait += 1) await new Promise((resolve) => setImmediate(resolve));
        return addEntry(store, user(`racer${n}`, targets[n % targets.length]!), ADMIN);
      });
      const renamed = rename(store, sales, 'ou=Moved', GROUPS_DN);
      const outcomes = await Promise.allSettled([renamed, ...adds]);
      assert.equal(outcomes[0]!.status, 'fulfilled', `round ${round}: the rename`);
      const accepted = outcomes.slice(1).filter((outcome) => outcome.status === 'fulfilled').length;
      for (const outcome of outcomes.slice(1)) {
        if (outcome.status === 'rejected') assert.equal((outcome.reason as DirectoryError).code, 32, `round ${round}: refused only as noSuchObject`);
      }
      assert.deepEqual(await orphans(), [], `round ${round}`);
      assert.deepEqual(await dns(store, sales, 'sub'), [], `round ${round}: nothing left under the old DN`);
      const moved = `ou=Moved,${GROUPS_DN}`;
      assert.equal((await dns(store, moved, 'sub')).length, before + accepted, `round ${round}: every accepted add moved with the tree`);
      assert.equal(store.locks.size, 0);
      await deleteTree(store, moved);
    }
  });

  test('deletes and renames inside the subtree during the move: each before or after, all consistent', async () => {
    const sales = await addSales(store);
    for (let n = 0; n < 40; n += 1) await store.add(user(`x${n}`, `ou=East,${sales}`), ADMIN);
    const outcomes = await Promise.allSettled([
      rename(store, sales, 'ou=Moved'),
      ...Array.from({ length: 20 }, (_, n) => deleteEntry(store, parseDn(`uid=x${n},ou=East,${sales}`))),
      ...Array.from({ length: 20 }, (_, n) => rename(store, `uid=x${20 + n},ou=East,${sales}`, `uid=y${20 + n}`)),
    ]);
    assert.equal(outcomes[0]!.status, 'fulfilled');
    assert.deepEqual(await dns(store, sales, 'sub'), []);
    assert.deepEqual(await orphans(), []);
    const east = await dns(store, 'ou=East,ou=Moved,dc=example,dc=com', 'one');
    const deleted = outcomes.slice(1, 21).filter((outcome) => outcome.status === 'fulfilled').length;
    const renamedInside = outcomes.slice(21).filter((outcome) => outcome.status === 'fulfilled').length;
    for (const outcome of outcomes.slice(1)) {
      if (outcome.status === 'rejected') assert.equal((outcome.reason as DirectoryError).code, 32, 'refused only as noSuchObject (after the move)');
    }
    assert.equal(east.length, 4 + 40 - deleted, 'the deletes done before the move are the ones missing');
    assert.equal(east.filter((dn) => dn.startsWith('uid=y')).length, renamedInside, 'the renames done before the move moved with it');
  });
});

/** Deletes the entry `dn` and everything below it, children first. */
async function deleteTree(store: DirectoryStore, dn: string): Promise<void> {
  const all = await dns(store, dn, 'sub');
  for (const found of all.sort((a, b) => b.split(',').length - a.split(',').length)) await deleteEntry(store, parseDn(found));
}
