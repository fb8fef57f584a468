/**
 * Groups in the store (src/store/groups.ts, memberships.ts, writes.ts): the keys a group's
 * members give (uniqueMember's optional UID left out, a value naming the group itself and values
 * that are not DNs ignored), kept by adds, modifies, deletes and renames in the group's batch
 * (checked against the raw keys after every test); memberships read directly and through nested
 * groups (cycles end, the walk's cap says it stopped); members of several groups merged;
 * referential integrity on delete and rename, with its cap; bulk loads; a format-1 database
 * upgraded when opened.
 */
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Level } from 'level';
import {
  BulkLoader, DirectoryError, DirectoryStore, deleteEntry, dnKey, modifyEntry, normalizeDn, normalizedDnOf, parseDn, renameEntry, updateEntry, values,
  type Dn, type Entry, type Modification,
} from '../../../src/store/index.js';
import {
  memberKeyOf, memberKeys, membershipChanges, membershipRecords, withMembersRenamed, withoutMember,
} from '../../../src/store/groups.js';
import { encodeEntry } from '../../../src/store/codec.js';
import { BASE, PEOPLE, assertConsistent, entry, person, tempDir } from '../../helpers/store.js';

const PEOPLE_DN = 'ou=People,dc=example,dc=com';
const GROUPS_DN = 'ou=Groups,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},${PEOPLE_DN}`;
const groupDn = (name: string) => `cn=${name},${GROUPS_DN}`;
const key = (dn: string) => dnKey(parseDn(dn));
const ADMIN = { actor: 'cn=admin' };
const change = (op: Modification['op'], attribute: string, ...vals: string[]): Modification => ({ op, attribute, values: vals.map((v) => Buffer.from(v)) });
const text = (found: Entry | undefined, name: string): string[] => (found ? values(found, name).map((v) => v.toString()) : []);
/** The group with the values naming `member` (a dnKey) naming `newDn`. */
const withMemberRenamed = (group: Entry, member: string, newDn: Dn) => withMembersRenamed(group, (_dn, found) => (found === member ? newDn : undefined));

function group(name: string, members: readonly string[], objectClass = 'groupOfNames'): Entry {
  const attribute = objectClass === 'groupOfNames' ? 'member' : 'uniqueMember';
  return entry(groupDn(name), { objectClass: ['top', objectClass], cn: name, ...(members.length > 0 && { [attribute]: [...members] }) });
}

describe('groups: the keys of a group entry', () => {
  test('a dnKey read back as a normalized DN is normalizeDn of the same DN', () => {
    for (const dn of ['UID=User.1, ou=People,DC=example,dc=com', 'cn=a\\,b+sn=c,o=x', 'dc=com']) {
      assert.equal(normalizedDnOf(key(dn)), normalizeDn(dn));
    }
    assert.equal(normalizedDnOf(''), '');
  });

  test('members: DN values by their normalized form; uniqueMember without its UID; itself, non-DNs and non-groups ignored', () => {
    const names = group('g', [userDn(1), 'UID=User.2,OU=people,dc=example,dc=com', 'not a dn', groupDn('g')]);
    assert.deepEqual([...memberKeys(names, key(groupDn('g')))], [key(userDn(1)), key(userDn(2))]);
    const unique = group('u', [`${userDn(3)}#'0101'B`, userDn(4)], 'groupOfUniqueNames');
    assert.deepEqual([...memberKeys(unique, key(groupDn('u')))], [key(userDn(3)), key(userDn(4))]);
    assert.notEqual(memberKeyOf('member', Buffer.from(`${userDn(3)}#'0101'B`)), key(userDn(3)), 'a member value keeps its # (the UID is uniqueMember\'s only)');
    const notAGroup = entry(userDn(5), { objectClass: 'inetOrgPerson', uid: 'user.5', member: userDn(1) });
    assert.equal(membershipRecords(notAGroup, key(userDn(5))).size, 0);
    const both = entry(groupDn('b'), { objectClass: ['groupOfNames', 'groupOfUniqueNames'], cn: 'b', member: userDn(1), uniqueMember: userDn(2) });
    assert.deepEqual([...memberKeys(both, key(groupDn('b')))].sort(), [key(userDn(1)), key(userDn(2))].sort());
  });

  test('the records: g for the group, r (the group DN as its value) and memberof per member', () => {
    const records = membershipRecords(group('g', [userDn(1)]), key(groupDn('g')));
    assert.deepEqual([...records.keys()].sort(), [
      `g\0${key(groupDn('g'))}`,
      `i\0memberof\0${normalizeDn(groupDn('g'))}\0${key(userDn(1))}`,
      `r\0${key(userDn(1))}\0${key(groupDn('g'))}`,
    ].sort());
    assert.equal(records.get(`r\0${key(userDn(1))}\0${key(groupDn('g'))}`)?.toString(), groupDn('g'));
  });

  test('changes: only what differs, and a new spelling of the group DN rewrites the r values', () => {
    const gk = key(groupDn('g'));
    const ops = membershipChanges(group('g', [userDn(1), userDn(2)]), gk, group('g', [userDn(2), userDn(3)]), gk);
    assert.deepEqual(ops.map((op) => `${op.type} ${op.key.slice(0, 1)}`).sort(), ['del i', 'del r', 'put i', 'put r']);
    const respelled = { ...group('g', [userDn(1)]), dn: 'CN=G,ou=Groups,dc=example,dc=com' };
    const rewritten = membershipChanges(group('g', [userDn(1)]), gk, respelled, gk);
    assert.deepEqual(rewritten.map((op) => op.type === 'put' && op.value.toString()), ['CN=G,ou=Groups,dc=example,dc=com']);
  });

  test('referential integrity on a group: values removed, or renamed with their UID kept and no repeat', () => {
    const unique = group('u', [`${userDn(1)}#'01'B`, userDn(2)], 'groupOfUniqueNames');
    assert.deepEqual(text(withoutMember(unique, key(userDn(1))), 'uniqueMember'), [userDn(2)]);
    assert.equal(withoutMember(unique, key(userDn(9))), unique, 'untouched when the entry is not named');
    const renamed = withMemberRenamed(unique, key(userDn(1)), parseDn(`uid=alice,${PEOPLE_DN}`));
    assert.deepEqual(text(renamed, 'uniqueMember'), [`uid=alice,${PEOPLE_DN}#'01'B`, userDn(2)]);
    const both = group('g', [userDn(1), userDn(2)]);
    assert.deepEqual(text(withMemberRenamed(both, key(userDn(1)), parseDn(userDn(2))), 'member'), [userDn(2)], 'no value twice');
    const respelled = withMemberRenamed(both, key(userDn(1)), parseDn('UID=User.1,ou=People,dc=example,dc=com'));
    assert.deepEqual(text(respelled, 'member'), ['UID=User.1,ou=People,dc=example,dc=com', userDn(2)], 'a new spelling of the same DN');
    const last = withoutMember(group('g', [userDn(1)]), key(userDn(1)));
    assert.deepEqual(text(last, 'member'), [], 'the last member removed leaves no member attribute');
  });
});

describe('groups in the store', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  beforeEach(async () => {
    dir = await tempDir('leveldap-groups-');
    store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await store.add(PEOPLE, ADMIN);
    await store.add(entry(GROUPS_DN, { objectClass: 'organizationalUnit', ou: 'Groups' }), ADMIN);
    for (let n = 0; n < 6; n += 1) await store.add(person(n), ADMIN);
  });

  afterEach(async () => {
    await store.close();
    await assertConsistent(dir.path, store.indexed);
    await dir.remove();
  });

  const groupsOf = async (dn: string, nested = false, max = 0) => {
    const walked = await store.memberships.groupsOf(key(dn), nested, max);
    return { dns: walked.found.map((found) => found.dn), complete: walked.complete };
  };
  const direct = async (dn: string) => (await groupsOf(dn)).dns;
  /** Members that need no entry of their own (a group's member values are DNs, existing or not). */
  const memberDn = (n: number) => `uid=m.${n},ou=People,dc=example,dc=com`;
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, n) => memberDn(from + n));
  const membersOf = async (...groups: string[]) => {
    const found: string[] = [];
    for await (const batch of store.memberships.members(groups.map(key))) found.push(...batch);
    return found;
  };

  test('add, modify and delete of a group keep its members\' memberships', async () => {
    await store.add(group('staff', [userDn(1), userDn(2), 'uid=nobody,ou=People,dc=example,dc=com']), ADMIN);
    assert.deepEqual(await direct(userDn(1)), [groupDn('staff')]);
    assert.deepEqual(await direct('uid=nobody,ou=People,dc=example,dc=com'), [groupDn('staff')], 'a member need not exist');
    await modifyEntry(store, parseDn(groupDn('staff')), [change('delete', 'member', userDn(1)), change('add', 'member', userDn(3))], ADMIN);
    assert.deepEqual(await direct(userDn(1)), []);
    assert.deepEqual(await direct(userDn(3)), [groupDn('staff')]);
    assert.equal((await membersOf(groupDn('staff'))).length, 3);
    await deleteEntry(store, parseDn(groupDn('staff')));
    assert.deepEqual(await direct(userDn(3)), []);
    assert.deepEqual(await membersOf(groupDn('staff')), []);
  });

  test('memberships read through iterators kept between reads: more than one trip of them, and every write seen at once', async () => {
    const names = Array.from({ length: 40 }, (_, n) => `many-${String(n).padStart(2, '0')}`);
    for (const name of names) await store.add(group(name, [userDn(4), userDn(5)]), ADMIN);
    assert.deepEqual(await direct(userDn(4)), names.map(groupDn), 'all 40, over three reads of 16');
    assert.deepEqual(await direct(userDn(5)), names.map(groupDn), 'a kept iterator seeks to the next member');
    for (const [n, name] of names.entries()) {
      if (n % 5 !== 0) continue;
      await modifyEntry(store, parseDn(groupDn(name)), [change('delete', 'member', userDn(4))], ADMIN);
      assert.deepEqual(await direct(userDn(4)), names.filter((_name, m) => m > n || m % 5 !== 0).map(groupDn), `after ${name} dropped user.4`);
    }
    assert.deepEqual(await direct(userDn(5)), names.map(groupDn));
  });

  test('an entry that stops (or starts) being a group drops (or gets) its memberships', async () => {
    // The schema refuses a client's change of structural class; the store's own writes (updateEntry) keep the keys all the same.
    const reclass = (op: Modification['op']) => updateEntry(store, parseDn(groupDn('later')), () => [change(op, 'objectClass', 'groupOfNames')]);
    await store.add(entry(groupDn('later'), { objectClass: 'applicationProcess', cn: 'later', member: userDn(1) }), ADMIN);
    assert.deepEqual(await direct(userDn(1)), []);
    await reclass('add');
    assert.deepEqual(await direct(userDn(1)), [groupDn('later')]);
    assert.equal(store.memberships.isGroup(key(groupDn('later'))), true);
    await reclass('delete');
    assert.deepEqual(await direct(userDn(1)), []);
    assert.equal(store.memberships.isGroup(key(groupDn('later'))), false);
  });

  test('nested groups: walked upward and downward, a cycle ends, the cap says the walk stopped', async () => {
    await store.add(group('a', [userDn(1), groupDn('b')]), ADMIN);
    await store.add(group('b', [userDn(2), groupDn('c')]), ADMIN);
    await store.add(group('c', [userDn(3), groupDn('a')]), ADMIN);
    await store.add(group('d', [groupDn('a')]), ADMIN);
    assert.deepEqual(await groupsOf(userDn(3)), { dns: [groupDn('c')], complete: true });
    const nested = await groupsOf(userDn(3), true);
    assert.deepEqual(nested.dns.sort(), [groupDn('a'), groupDn('b'), groupDn('c'), groupDn('d')].sort());
    assert.equal(nested.complete, true);
    assert.deepEqual((await groupsOf(groupDn('a'), true)).dns.sort(), [groupDn('b'), groupDn('c'), groupDn('d')].sort(), 'never the group itself');
    assert.equal((await groupsOf(userDn(3), true, 2)).complete, false);
    const below = await store.memberships.groupsBelow(key(groupDn('d')), 0);
    assert.deepEqual(below.found.map(normalizedDnOf).sort(), ['d', 'a', 'b', 'c'].map((name) => normalizeDn(groupDn(name))).sort());
    assert.equal((await store.memberships.groupsBelow(key(groupDn('d')), 2)).complete, false);
    assert.deepEqual(await membersOf(groupDn('a'), groupDn('b'), groupDn('c')), [
      key(userDn(1)), key(userDn(2)), key(userDn(3)), key(groupDn('a')), key(groupDn('b')), key(groupDn('c')),
    ].sort(), 'members of several groups: each once, in key order');
    assert.equal(store.memberships.isMember(key(userDn(1)), key(groupDn('a'))), true);
    assert.equal(store.memberships.isMember(key(userDn(1)), key(groupDn('b'))), false);
  });

  test('isMember answers asked again are kept, and a member added or removed is seen by the next probe', async () => {
    await store.add(group('p', [userDn(1)]), ADMIN);
    const probe = () => [store.memberships.isMember(key(userDn(1)), key(groupDn('p'))), store.memberships.isMember(key(userDn(2)), key(groupDn('p')))];
    assert.deepEqual(probe(), [true, false]);
    assert.deepEqual(probe(), [true, false], 'asked again');
    await modifyEntry(store, parseDn(groupDn('p')), [change('add', 'member', userDn(2))], ADMIN);
    assert.deepEqual(probe(), [true, true], 'the member added');
    await modifyEntry(store, parseDn(groupDn('p')), [change('delete', 'member', userDn(1))], ADMIN);
    assert.deepEqual(probe(), [false, true], 'the member removed');
    await deleteEntry(store, parseDn(groupDn('p')));
    assert.deepEqual(probe(), [false, false], 'the group deleted');
  });

  test('a group\'s members listed again are kept, and a member added or removed, or the group deleted, is seen by the next listing', async () => {
    await store.add(group('k', range(0, 300)), ADMIN);
    assert.deepEqual(await membersOf(groupDn('k')), range(0, 300).map(key).sort());
    const read = store.memberships.stats.memberKeysRead;
    assert.deepEqual(await membersOf(groupDn('k')), range(0, 300).map(key).sort(), 'listed again');
    assert.equal(store.memberships.stats.memberKeysRead, read, 'listed again without reading LevelDB');
    await modifyEntry(store, parseDn(groupDn('k')), [change('add', 'member', memberDn(300))], ADMIN);
    assert.deepEqual(await membersOf(groupDn('k')), range(0, 301).map(key).sort(), 'the member added');
    await modifyEntry(store, parseDn(groupDn('k')), [change('delete', 'member', memberDn(0))], ADMIN);
    assert.deepEqual(await membersOf(groupDn('k')), range(1, 301).map(key).sort(), 'the member removed');
    await deleteEntry(store, parseDn(groupDn('k')));
    assert.deepEqual(await membersOf(groupDn('k')), [], 'the group deleted');
  });

  test('members of groups larger than one read: every batch merged, each member once, in key order', async () => {
    await store.add(group('x', range(0, 300)), ADMIN);
    await store.add(group('y', range(150, 450)), ADMIN);
    assert.deepEqual(await membersOf(groupDn('x')), range(0, 300).map(key).sort(), 'one group over two reads of 256');
    assert.deepEqual(await membersOf(groupDn('x'), groupDn('y')), range(0, 450).map(key).sort(), 'two groups sharing 150 members');
  });

  test('a search hinted by groups\' members reads only them, in scope, existing ones only', async () => {
    await store.add(group('g', [userDn(1), userDn(2), 'uid=ghost,ou=People,dc=example,dc=com', GROUPS_DN]), ADMIN);
    const found: string[] = [];
    const before = store.stats.entriesRead;
    for await (const candidate of store.search(PEOPLE_DN, 'sub', { membersOf: [key(groupDn('g'))] })) found.push(candidate.dn);
    assert.deepEqual(found, [userDn(1), userDn(2)]);
    assert.equal(store.stats.entriesRead - before, 2, 'an index lookup: only the members in scope are read, not the 6 users');
  });

  test('a search of a group\'s members reads each member\'s record only when the walk asks for the next', async () => {
    await store.add(group('all', Array.from({ length: 6 }, (_, n) => userDn(n))), ADMIN);
    const before = store.stats.entriesRead;
    for await (const candidate of store.search(PEOPLE_DN, 'sub', { membersOf: [key(groupDn('all'))] })) {
      assert.equal(candidate.dn, userDn(0));
      break;
    }
    assert.equal(store.stats.entriesRead - before, 1, 'the walk stopped after the first: one record read, not the batch of 6');
  });

  test('deleting a member removes it from every group naming it, in the same write', async () => {
    await store.add(group('a', [userDn(1), userDn(2)]), ADMIN);
    await store.add(group('u', [`${userDn(1)}#'1'B`, userDn(3)], 'groupOfUniqueNames'), ADMIN);
    await deleteEntry(store, parseDn(userDn(1)), { actor: 'cn=deleter' });
    const a = await store.get(groupDn('a'));
    assert.deepEqual(text(a, 'member'), [userDn(2)]);
    assert.deepEqual(text(a, 'modifiersName'), ['cn=deleter']);
    assert.deepEqual(text(await store.get(groupDn('u')), 'uniqueMember'), [userDn(3)]);
    assert.deepEqual(await direct(userDn(1)), []);
  });

  test('renaming or moving a member rewrites the groups\' values; renaming a group moves its members\' memberships', async () => {
    await store.add(group('a', [userDn(1), userDn(2)]), ADMIN);
    await store.add(group('top', [groupDn('a')]), ADMIN);
    await renameEntry(store, parseDn(userDn(1)), { newRdn: parseDn('uid=alice')[0]!, deleteOldRdn: true }, ADMIN);
    assert.deepEqual(text(await store.get(groupDn('a')), 'member'), [`uid=alice,${PEOPLE_DN}`, userDn(2)], 'in place');
    assert.deepEqual(await direct(`uid=alice,${PEOPLE_DN}`), [groupDn('a')]);
    await renameEntry(store, parseDn(userDn(2)), { newRdn: parseDn('uid=user.2')[0]!, deleteOldRdn: true, newSuperior: parseDn(GROUPS_DN) }, ADMIN);
    assert.deepEqual(text(await store.get(groupDn('a')), 'member'), [`uid=alice,${PEOPLE_DN}`, `uid=user.2,${GROUPS_DN}`]);
    await renameEntry(store, parseDn(groupDn('a')), { newRdn: parseDn('cn=admins')[0]!, deleteOldRdn: true }, ADMIN);
    assert.deepEqual(await direct(`uid=alice,${PEOPLE_DN}`), [groupDn('admins')]);
    assert.deepEqual(text(await store.get(groupDn('top')), 'member'), [groupDn('admins')]);
    assert.deepEqual(await membersOf(groupDn('a')), []);
    assert.equal((await membersOf(groupDn('admins'))).length, 2);
  });

  test('a delete and a rename racing modifies of the same groups: every change kept (they take the groups\' locks)', async () => {
    await store.add(group('a', [userDn(1), userDn(2)]), ADMIN);
    await store.add(group('b', [userDn(1)]), ADMIN);
    await Promise.all([
      ...[3, 4, 5].map((n) => modifyEntry(store, parseDn(groupDn('a')), [change('add', 'member', userDn(n))], ADMIN)),
      deleteEntry(store, parseDn(userDn(1))),
      renameEntry(store, parseDn(userDn(2)), { newRdn: parseDn('uid=bob')[0]!, deleteOldRdn: true }, ADMIN),
      ...[3, 4].map((n) => modifyEntry(store, parseDn(groupDn('b')), [change('add', 'member', userDn(n))], ADMIN)),
    ]);
    assert.deepEqual(text(await store.get(groupDn('a')), 'member').sort(), [`uid=bob,${PEOPLE_DN}`, userDn(3), userDn(4), userDn(5)].sort());
    assert.deepEqual(text(await store.get(groupDn('b')), 'member').sort(), [userDn(3), userDn(4)]);
  });

  test('a member deleted, or renamed, while the group naming it moves: the group at its new DN is updated', async () => {
    const OTHER = 'ou=Other,dc=example,dc=com';
    await store.add(entry(OTHER, { objectClass: 'organizationalUnit', ou: 'Other' }), ADMIN);
    await store.add(group('g', [userDn(1), userDn(2)]), ADMIN);
    const moveGroup = (during: () => void) => renameEntry(store, parseDn(groupDn('g')), { newRdn: parseDn('cn=g')[0]!, deleteOldRdn: false, newSuperior: parseDn(OTHER) }, {
      ...ADMIN,
      // Under the move's locks: the other write reads the groups naming its entry (the old DN) and waits for the group's lock.
      check: async () => {
        during();
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    });
    let removed: Promise<void> | undefined;
    await moveGroup(() => { removed = deleteEntry(store, parseDn(userDn(1)), ADMIN); });
    await removed;
    assert.deepEqual(text(await store.get(`cn=g,${OTHER}`), 'member'), [userDn(2)], 'the deleted member is gone from the moved group');
    let renamed: Promise<unknown> | undefined;
    await renameEntry(store, parseDn(`cn=g,${OTHER}`), { newRdn: parseDn('cn=g')[0]!, deleteOldRdn: false, newSuperior: parseDn(GROUPS_DN) }, {
      ...ADMIN,
      check: async () => {
        renamed = renameEntry(store, parseDn(userDn(2)), { newRdn: parseDn('uid=carol')[0]!, deleteOldRdn: true }, ADMIN);
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    });
    await renamed;
    assert.deepEqual(text(await store.get(groupDn('g')), 'member'), [`uid=carol,${PEOPLE_DN}`], 'the renamed member is renamed in the moved group');
  });

  test('a group naming itself is not its own member; renamed, it names its new DN', async () => {
    await store.add(group('self', [groupDn('self'), userDn(1)]), ADMIN);
    assert.deepEqual(await direct(groupDn('self')), []);
    await renameEntry(store, parseDn(groupDn('self')), { newRdn: parseDn('cn=me')[0]!, deleteOldRdn: true }, ADMIN);
    assert.deepEqual(text(await store.get(groupDn('me')), 'member'), [groupDn('me'), userDn(1)]);
  });

  test('past --max-refint-groups a delete or rename is refused and nothing changes', async () => {
    for (const name of ['a', 'b', 'c']) await store.add(group(name, [userDn(1)]), ADMIN);
    await assert.rejects(deleteEntry(store, parseDn(userDn(1)), { maxRefintGroups: 2 }), (error: unknown) => {
      assert.ok(error instanceof DirectoryError);
      assert.equal(error.code, 11);
      assert.match(error.message, /is a member of 3 groups; a delete or rename updates at most 2/);
      return true;
    });
    await assert.rejects(renameEntry(store, parseDn(userDn(1)), { newRdn: parseDn('uid=x')[0]!, deleteOldRdn: true }, { ...ADMIN, maxRefintGroups: 2 }), /at most 2/);
    assert.ok(await store.get(userDn(1)));
    assert.equal((await direct(userDn(1))).length, 3);
    await deleteEntry(store, parseDn(userDn(1)), { maxRefintGroups: 3 });
  });

  test('a bulk load writes the groups\' keys and drops memberOf values an LDIF carries', async () => {
    const loader = new BulkLoader(store, { actor: 'cn=admin' });
    await loader.addAll([
      person(10, { memberOf: groupDn('wrong') }),
      group('loaded', [userDn(10), userDn(1)]),
    ]);
    await loader.finish();
    assert.deepEqual(await direct(userDn(10)), [groupDn('loaded')]);
    assert.deepEqual(text(await store.get(userDn(10)), 'memberOf'), [], 'memberOf is never stored');
  });
});

describe('store format 1', () => {
  test('is upgraded when opened: the groups\' keys are written, then format 2', async () => {
    const dir = await tempDir('leveldap-upgrade-');
    let store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await store.add(entry(GROUPS_DN, { objectClass: 'organizationalUnit', ou: 'Groups' }), ADMIN);
    await store.add(entry(PEOPLE_DN, { objectClass: 'organizationalUnit', ou: 'People' }), ADMIN);
    await store.add(person(1), ADMIN);
    await store.add(group('g', [userDn(1), userDn(2)]), ADMIN);
    await store.close();
    const raw = new Level<string, Buffer>(dir.path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    for await (const rawKey of raw.keys()) if (/^(?:g|r)\0|^i\0memberof\0/.test(rawKey)) await raw.del(rawKey);
    await raw.put('m\0format', Buffer.from('1'));
    // Format 1 stored the memberOf values an LDIF carried (slapcat's, with OpenLDAP's memberof overlay).
    await raw.put(`e\0${key(userDn(1))}`, encodeEntry(person(1, { memberOf: groupDn('stale') })));
    await raw.close();
    const logged: string[] = [];
    store = await DirectoryStore.open(dir.path, { log: { info: (_details, message) => logged.push(message), warn: () => {}, error: () => {} } });
    assert.deepEqual((await store.memberships.direct(key(userDn(1)))).map((found) => found.dn), [groupDn('g')]);
    assert.match(logged.join('\n'), /upgraded from store format 1 to 2/);
    assert.deepEqual(text(await store.get(userDn(1)), 'memberOf'), [], 'stored memberOf values are removed');
    await store.close();
    const check = new Level<string, string>(dir.path);
    assert.equal(await check.get('m\0format'), '2');
    await check.close();
    await assertConsistent(dir.path, new Set(['member', 'objectclass', 'cn', 'uid', 'sn', 'mail', 'uniquemember']));
    await dir.remove();
  });
});
