/**
 * Membership items of filters (src/server/filter/membership.ts) over a real store: memberOf
 * equality, directly and with --memberof-nested; the in-chain rule on memberOf and on
 * member/uniqueMember, through a cycle; Undefined for assertions that are not DNs and for
 * in-chain on other attributes; the cap on nested groups; the index hint each item gives;
 * which filters need memberOf's values.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  IN_CHAIN, build, indexHint, matches, needsMemberOfValues, resolveMemberships, withinHint, type Filter, type Memberships,
} from '../../../../src/server/filter/index.js';
import { DirectoryError, DirectoryStore, dnKey, parseDn, type Entry } from '../../../../src/store/index.js';
import { BASE, PEOPLE, entry, person, tempDir } from '../../../helpers/store.js';

const { and, or, not, equality, present, extensible, approx } = build;

const GROUPS_DN = 'ou=Groups,dc=example,dc=com';
const userDn = (n: number) => `uid=user.${n},ou=People,dc=example,dc=com`;
const groupDn = (name: string) => `cn=${name},${GROUPS_DN}`;
const ADMIN = { actor: 'cn=admin' };
const inChain = (attribute: string, value: string) => extensible(value, { attribute, rule: IN_CHAIN });

describe('membership items', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;
  const entries: Entry[] = [];

  before(async () => {
    dir = await tempDir('leveldap-membership-');
    store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
    await store.add(PEOPLE, ADMIN);
    await store.add(entry(GROUPS_DN, { objectClass: 'organizationalUnit', ou: 'Groups' }), ADMIN);
    for (let n = 0; n < 6; n += 1) await store.add(person(n), ADMIN);
    // top > staff > ops (> staff again: a cycle); user.4 in a groupOfUniqueNames with a UID.
    const groups = [
      entry(groupDn('top'), { objectClass: 'groupOfNames', cn: 'top', member: [groupDn('staff'), userDn(0)] }),
      entry(groupDn('staff'), { objectClass: 'groupOfNames', cn: 'staff', member: [userDn(1), groupDn('ops')] }),
      entry(groupDn('ops'), { objectClass: 'groupOfNames', cn: 'ops', member: [userDn(2), userDn(3), groupDn('staff')] }),
      entry(groupDn('uniq'), { objectClass: 'groupOfUniqueNames', cn: 'uniq', uniqueMember: `${userDn(4)}#'01'B` }),
    ];
    for (const group of groups) await store.add(group, ADMIN);
    for await (const found of store.search('dc=example,dc=com', 'sub')) entries.push(found);
  });

  after(async () => {
    await store.close();
    await dir.remove();
  });

  const resolve = async (filter: Filter, nested = false, maxGroups = 0) => resolveMemberships(filter, store, { nested, maxGroups });

  /** The DNs the filter matches among every entry, each tested as the search tests it. */
  async function matching(filter: Filter, nested = false): Promise<string[]> {
    const memberships = await resolve(filter, nested);
    return entries.filter((candidate) => {
      const key = dnKey(parseDn(candidate.dn));
      return matches(filter, candidate, { memberships: { tests: memberships.tests, key } }) === true;
    }).map((candidate) => candidate.dn).sort();
  }

  test('(memberOf=G): the direct members of G; with nesting, those of the groups below it too, never G itself', async () => {
    assert.deepEqual(await matching(equality('memberOf', groupDn('top'))), [groupDn('staff'), userDn(0)].sort());
    assert.deepEqual(await matching(equality('memberOf', 'CN=Ops,OU=groups,DC=example,DC=com')), [groupDn('staff'), userDn(2), userDn(3)].sort());
    const nested = [groupDn('ops'), groupDn('staff'), userDn(0), userDn(1), userDn(2), userDn(3)].sort();
    assert.deepEqual(await matching(equality('memberOf', groupDn('top')), true), nested);
    assert.deepEqual(await matching(approx('memberOf', groupDn('top')), true), nested);
    assert.deepEqual(await matching(extensible(groupDn('top'), { attribute: 'memberOf', rule: 'distinguishedNameMatch' }), true), nested);
    assert.deepEqual(await matching(equality('memberOf', groupDn('uniq'))), [userDn(4)], 'uniqueMember\'s UID is not part of the name');
  });

  test('in-chain on memberOf: members through nesting, whatever the setting; a cycle ends', async () => {
    assert.deepEqual(await matching(inChain('memberOf', groupDn('top'))), [groupDn('ops'), groupDn('staff'), userDn(0), userDn(1), userDn(2), userDn(3)].sort());
    assert.deepEqual(await matching(inChain('memberOf', groupDn('ops'))), [groupDn('staff'), userDn(1), userDn(2), userDn(3)].sort(),
      'staff and ops are each other\'s members: ops is not its own');
  });

  test('in-chain on member and uniqueMember: the groups naming X, directly or through nesting', async () => {
    assert.deepEqual(await matching(inChain('member', userDn(2))), [groupDn('ops'), groupDn('staff'), groupDn('top')].sort());
    assert.deepEqual(await matching(inChain('member', userDn(0))), [groupDn('top')]);
    assert.deepEqual(await matching(inChain('uniqueMember', `${userDn(4)}#'01'B`)), [groupDn('uniq')]);
    assert.deepEqual(await matching(inChain('member', 'uid=nobody,dc=example,dc=com')), []);
  });

  test('NOT and OR around membership items; an assertion that is not a DN is Undefined; in-chain elsewhere is an unknown rule', async () => {
    assert.deepEqual(await matching(and(present('uid'), not(equality('memberOf', groupDn('ops'))))), [userDn(0), userDn(1), userDn(4), userDn(5)]);
    assert.deepEqual(await matching(or(equality('memberOf', groupDn('top')), equality('uid', 'user.5'))), [groupDn('staff'), userDn(0), userDn(5)].sort());
    const memberships = await resolve(equality('memberOf', 'not a dn'));
    const key = dnKey(parseDn(userDn(0)));
    assert.equal(matches(not(equality('memberOf', 'not a dn')), entries[0]!, { memberships: { tests: memberships.tests, key } }), undefined);
    const other = inChain('manager', userDn(1));
    assert.equal(matches(other, entries[0]!, { memberships: { tests: (await resolve(other)).tests, key } }), undefined);
    assert.equal(matches(inChain('memberOf', groupDn('top')), entries[0]!), undefined, 'not resolved (compare): Undefined');
  });

  test('past --max-nested-groups the search is refused (adminLimitExceeded), not answered from part of the groups', async () => {
    const refused = (filter: Filter, nested: boolean) => assert.rejects(resolve(filter, nested, 2), (error: unknown) => {
      assert.ok(error instanceof DirectoryError);
      assert.equal(error.code, 11);
      assert.match(error.message, /expands more than 2 groups \(--max-nested-groups\)/);
      return true;
    });
    await refused(inChain('memberOf', groupDn('top')), false);
    await refused(equality('memberOf', groupDn('top')), true);
    await refused(inChain('member', userDn(2)), false);
    await resolve(equality('memberOf', groupDn('top')), false, 1);
  });

  test('hints: an indexed equality first, then the membership\'s candidates, before objectClass', async () => {
    const hint = async (filter: Filter, nested = false) => indexHint(filter, store.indexed, (await resolve(filter, nested)).hints);
    const groupKey = (name: string) => dnKey(parseDn(groupDn(name)));
    assert.deepEqual(await hint(and(equality('objectClass', 'person'), equality('memberOf', groupDn('top')))), { membersOf: [groupKey('top')] });
    assert.deepEqual(await hint(and(equality('uid', 'user.1'), equality('memberOf', groupDn('top')))), { equality: { attribute: 'uid', value: Buffer.from('user.1') } });
    const below = await hint(equality('memberOf', groupDn('top')), true);
    assert.ok(below && 'membersOf' in below);
    assert.deepEqual([...below.membersOf].sort(), ['top', 'staff', 'ops'].map(groupKey).sort());
    const above = await hint(and(equality('objectClass', 'groupOfNames'), inChain('member', userDn(0))));
    assert.deepEqual(above, { entries: [groupKey('top')] });
    assert.equal(await hint(or(equality('memberOf', groupDn('top')), equality('uid', 'x'))), undefined);
  });

  test('within the hint: the entries a memberOf item\'s own candidates yield match as when every entry is probed', async () => {
    /** The DNs matched among the hint's candidates, tested with withinHint's tests (as a search's walk tests them). */
    async function fromHint(filter: Filter, nested: boolean): Promise<string[]> {
      const resolved = await resolve(filter, nested);
      const hint = indexHint(filter, store.indexed, resolved.hints);
      const memberships = withinHint(resolved, hint);
      const dns: string[] = [];
      for await (const candidate of store.search('dc=example,dc=com', 'sub', hint)) {
        const key = dnKey(parseDn(candidate.dn));
        if (matches(filter, candidate, { memberships: { tests: memberships.tests, key } }) === true) dns.push(candidate.dn);
      }
      return dns.sort();
    }
    const filters: [Filter, boolean][] = [
      [equality('memberOf', groupDn('top')), false],
      [equality('memberOf', groupDn('top')), true],
      [equality('memberOf', groupDn('ops')), false],
      [inChain('memberOf', groupDn('ops')), false], // staff > ops > staff: ops is not its own member
      [inChain('memberOf', groupDn('staff')), false],
      [and(equality('memberOf', groupDn('top')), equality('memberOf', groupDn('ops'))), true],
      [and(equality('memberOf', groupDn('ops')), not(equality('memberOf', groupDn('staff')))), false],
      [and(equality('objectClass', 'person'), equality('memberOf', groupDn('staff'))), true],
    ];
    for (const [filter, nested] of filters) {
      const label = `${JSON.stringify(filter)} nested=${nested}`;
      assert.deepEqual(await fromHint(filter, nested), await matching(filter, nested), label);
    }
    const top = equality('memberOf', groupDn('top'));
    const resolved = await resolve(top, true);
    const hint = indexHint(top, store.indexed, resolved.hints);
    assert.equal(withinHint(resolved, hint).probes, 0, 'no probes left for the hint\'s own item');
    assert.equal(withinHint(resolved, undefined), resolved, 'no hint: every item probed');
  });

  test('memberOf\'s values are needed for the items that are not resolved: presence, options, a rule other than DN equality', async () => {
    const needs = async (filter: Filter) => needsMemberOfValues(filter, (await resolve(filter)) as Memberships);
    assert.equal(await needs(equality('memberOf', groupDn('top'))), false);
    assert.equal(await needs(inChain('memberOf', groupDn('top'))), false);
    assert.equal(await needs(present('memberOf')), true);
    assert.equal(await needs(equality('memberOf;x', groupDn('top'))), true);
    assert.equal(await needs(extensible(groupDn('top'), { attribute: 'memberOf', rule: 'caseIgnoreMatch' })), true);
    assert.equal(await needs(equality('uid', 'a')), false);
    const user = entries.find((found) => found.dn === userDn(0))!;
    assert.equal(matches(present('memberOf'), user, { memberOf: [Buffer.from(groupDn('top'))] }), true);
    assert.equal(matches(present('memberOf'), user, { memberOf: [] }), false);
  });
});
