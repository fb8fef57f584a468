/**
 * Groups through `leveldap serve`, driven with OpenLDAP's clients: memberOf on the entries a
 * groupOfNames or groupOfUniqueNames names (by name and with `+`, not with `*`), filters and
 * compare on it, writes of memberOf refused, group writes followed at once; nested groups
 * (--memberof-nested) and the in-chain rule, cycles ending; referential integrity on ldapdelete
 * and ldapmodrdn; the caps (--max-nested-groups, --max-refint-groups); and memberOf and the
 * groups kept after kill -9 right after acknowledged group writes.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { parseLdifOutput, valuesOf, RawConnection } from '../helpers/ldap-client.js';
import { adminClient as client, adminTool as tool, type AdminClient as Client } from '../helpers/admin-client.js';
import { answer, bindRequest, deleteRequest, exchange, modifyDnRequest, modifyRequest } from '../helpers/ldap-requests.js';

const BASE = 'dc=example,dc=com';
const PEOPLE = `ou=People,${BASE}`;
const GROUPS = `ou=Groups,${BASE}`;
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
const groupDn = (name: string) => `cn=${name},${GROUPS}`;
const IN_CHAIN = '1.2.840.113556.1.4.1941';

const TOOLS = ['ldapsearch', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldapmodrdn', 'ldapcompare'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

const ldif = (...lines: string[]) => `${lines.join('\n')}\n`;

function group(name: string, members: readonly string[], objectClass = 'groupOfNames'): string {
  const attribute = objectClass === 'groupOfNames' ? 'member' : 'uniqueMember';
  return ldif(`dn: ${groupDn(name)}`, `objectClass: ${objectClass}`, `cn: ${name}`, ...members.map((member) => `${attribute}: ${member}`));
}

/**
 * admins names user.1, user.2 and ops; ops names user.3 and admins (a cycle); top names admins;
 * uniq (groupOfUniqueNames) names user.4 with a UID and user.1; big names user.0 .. user.19.
 */
const GROUPS_LDIF = [
  ldif(`dn: ${GROUPS}`, 'objectClass: organizationalUnit', 'ou: Groups'),
  group('admins', [userDn(1), userDn(2), groupDn('ops')]),
  group('ops', [userDn(3), groupDn('admins')]),
  group('top', [groupDn('admins')]),
  group('uniq', [`${userDn(4)}#'0101'B`, userDn(1)], 'groupOfUniqueNames'),
  group('big', Array.from({ length: 20 }, (_, n) => userDn(n))),
].join('\n');

/** DN (lower-case) -> memberOf values, for the entries the filter matches under `base`. */
async function memberOf(c: Client, filter: string, base = BASE, attributes: readonly string[] = ['memberOf']): Promise<Map<string, string[]>> {
  const result = await tool(c, 'ldapsearch', ['-LLL', '-b', base, filter, ...attributes]);
  assert.equal(result.code, 0, result.stderr);
  return new Map(parseLdifOutput(result.stdout).map((entry) => [entry.dn.toLowerCase(), valuesOf(entry, 'memberOf').map((dn) => dn.toLowerCase())]));
}

/** The DNs (lower-case, sorted) the filter matches. */
async function found(c: Client, filter: string, base = BASE): Promise<string[]> {
  return [...(await memberOf(c, filter, base, ['1.1'])).keys()].sort();
}

const lower = (...dns: string[]) => dns.map((dn) => dn.toLowerCase()).sort();

async function values(c: Client, dn: string, attribute: string): Promise<string[]> {
  const result = await tool(c, 'ldapsearch', ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', attribute]);
  assert.equal(result.code, 0, result.stderr);
  return valuesOf(parseLdifOutput(result.stdout)[0]!, attribute);
}

const modify = (c: Client, dn: string, ...lines: string[]) => tool(c, 'ldapmodify', [], ldif(`dn: ${dn}`, 'changetype: modify', ...lines));

describe('leveldap serve: memberOf', { skip }, () => {
  let c: Client;

  before(async () => { c = client(await startLeveldap({ users: 30, ldif: GROUPS_LDIF })); });
  after(async () => { await c?.server.stop(); });

  test('on every entry a group names: asked for by name or by +, never by *; uniqueMember\'s UID is not part of the name', async () => {
    const byName = await memberOf(c, '(uid=user.1)');
    assert.deepEqual(byName.get(userDn(1).toLowerCase())?.sort(), lower(groupDn('admins'), groupDn('big'), groupDn('uniq')));
    const operational = await memberOf(c, '(uid=user.4)', BASE, ['+']);
    assert.deepEqual(operational.get(userDn(4).toLowerCase())?.sort(), lower(groupDn('big'), groupDn('uniq')));
    const all = await tool(c, 'ldapsearch', ['-LLL', '-b', BASE, '(uid=user.1)', '*']);
    assert.doesNotMatch(all.stdout, /memberOf/i);
    const groups = await memberOf(c, '(cn=ops)');
    assert.deepEqual(groups.get(groupDn('ops').toLowerCase()), lower(groupDn('admins')), 'a group is a member too');
    assert.deepEqual((await memberOf(c, '(uid=user.25)')).get(userDn(25).toLowerCase()), [], 'no groups: no memberOf');
  });

  test('filters: (memberOf=G) in any spelling, inside AND, OR and NOT, presence; compare', async () => {
    assert.deepEqual(await found(c, `(memberOf=${groupDn('admins')})`), lower(userDn(1), userDn(2), groupDn('ops')));
    assert.deepEqual(await found(c, '(memberOf=CN=Uniq, OU=groups,DC=Example,DC=com)'), lower(userDn(1), userDn(4)));
    assert.deepEqual(await found(c, `(&(objectClass=inetOrgPerson)(memberOf=${groupDn('admins')}))`), lower(userDn(1), userDn(2)));
    assert.deepEqual(await found(c, `(&(memberOf=${groupDn('big')})(!(memberOf=${groupDn('admins')}))(|(uid=user.1)(uid=user.5)))`), lower(userDn(5)));
    assert.equal((await found(c, '(memberOf=*)', PEOPLE)).length, 20);
    const compare = (value: string) => tool(c, 'ldapcompare', [userDn(3), `memberOf:${value}`]);
    assert.equal((await compare(groupDn('ops'))).code, 6, 'compareTrue');
    assert.equal((await compare(groupDn('admins'))).code, 5, 'compareFalse: not nested without --memberof-nested');
  });

  test('(memberOf=G) in every scope and across pages: a base search of a non-member finds nothing, a member is found', async () => {
    const scoped = async (base: string, scope: string, filter: string, extra: readonly string[] = []) => {
      const result = await tool(c, 'ldapsearch', ['-LLL', ...extra, '-b', base, '-s', scope, filter, '1.1']);
      assert.equal(result.code, 0, result.stderr);
      return parseLdifOutput(result.stdout).map((entry) => entry.dn.toLowerCase()).sort();
    };
    const admins = `(memberOf=${groupDn('admins')})`;
    assert.deepEqual(await scoped(userDn(5), 'base', admins), [], 'user.5 is not in admins');
    assert.deepEqual(await scoped(userDn(1), 'base', admins), lower(userDn(1)));
    assert.deepEqual(await scoped(groupDn('admins'), 'base', `(memberOf=${groupDn('ops')})`), lower(groupDn('admins')));
    assert.deepEqual(await scoped(PEOPLE, 'one', admins), lower(userDn(1), userDn(2)));
    assert.deepEqual(await scoped(GROUPS, 'one', admins), lower(groupDn('ops')));
    const big = `(memberOf=${groupDn('big')})`;
    const all = Array.from({ length: 20 }, (_, n) => userDn(n));
    assert.deepEqual(await scoped(BASE, 'sub', big, ['-E', 'pr=3/noprompt']), lower(...all), 'pages of 3');
  });

  test('in-chain (1.2.840.113556.1.4.1941): members through nested groups, groups containing a member; the cycle ends', async () => {
    assert.deepEqual(await found(c, `(memberOf:${IN_CHAIN}:=${groupDn('top')})`), lower(groupDn('admins'), groupDn('ops'), userDn(1), userDn(2), userDn(3)));
    assert.deepEqual(await found(c, `(memberOf:${IN_CHAIN}:=${groupDn('admins')})`), lower(groupDn('ops'), userDn(1), userDn(2), userDn(3)));
    assert.deepEqual(await found(c, `(member:${IN_CHAIN}:=${userDn(3)})`), lower(groupDn('admins'), groupDn('big'), groupDn('ops'), groupDn('top')));
    assert.deepEqual(await found(c, `(&(objectClass=groupOfNames)(member:${IN_CHAIN}:=${userDn(1)}))`), lower(groupDn('admins'), groupDn('big'), groupDn('ops'), groupDn('top')));
    assert.deepEqual(await found(c, `(uniqueMember:${IN_CHAIN}:=${userDn(4)}#'0101'B)`), lower(groupDn('big'), groupDn('uniq')), 'the chain follows member and uniqueMember alike');
  });

  test('writing memberOf is refused (19, as slapd answers for the overlay\'s attribute)', async () => {
    const added = await modify(c, userDn(5), 'add: memberOf', `memberOf: ${groupDn('admins')}`);
    assert.equal(added.code, 19, added.stderr);
    assert.match(added.stderr, /memberOf: no user modification allowed/);
    const entry = await tool(c, 'ldapadd', [], ldif(`dn: uid=sneaky,${PEOPLE}`, 'objectClass: account', 'uid: sneaky', `memberOf: ${groupDn('admins')}`));
    assert.equal(entry.code, 19, entry.stderr);
    assert.deepEqual(await values(c, userDn(5), 'memberOf'), [groupDn('big')]);
  });

  test('group writes are seen at once: ldapadd, ldapmodify (add, delete, replace), ldapdelete of a group; a member that does not exist is allowed', async () => {
    const added = await tool(c, 'ldapadd', [], group('new', [userDn(21), `uid=ghost,${PEOPLE}`]));
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(await found(c, `(memberOf=${groupDn('new')})`), lower(userDn(21)));
    assert.equal((await modify(c, groupDn('new'), 'add: member', `member: ${userDn(22)}`, '-', 'delete: member', `member: ${userDn(21)}`)).code, 0);
    assert.deepEqual(await found(c, `(memberOf=${groupDn('new')})`), lower(userDn(22)));
    assert.deepEqual(await values(c, userDn(21), 'memberOf'), []);
    assert.equal((await modify(c, groupDn('new'), 'replace: member', `member: ${userDn(23)}`, `member: ${userDn(24)}`)).code, 0);
    assert.deepEqual(await found(c, `(memberOf=${groupDn('new')})`), lower(userDn(23), userDn(24)));
    const ghost = await tool(c, 'ldapadd', [], ldif(`dn: uid=ghost,${PEOPLE}`, 'objectClass: account', 'uid: ghost'));
    assert.equal(ghost.code, 0, ghost.stderr);
    assert.deepEqual(await values(c, `uid=ghost,${PEOPLE}`, 'memberOf'), [], 'replaced away before the entry existed');
    assert.equal((await tool(c, 'ldapdelete', [groupDn('new')])).code, 0);
    assert.deepEqual(await values(c, userDn(23), 'memberOf'), []);
  });

  test('referential integrity: ldapdelete removes the entry from every group; ldapmodrdn (rename, move) rewrites the values', async () => {
    const setUp = await tool(c, 'ldapadd', [], [group('ri', [userDn(26), userDn(27)]), group('ri-unique', [`${userDn(27)}#'1'B`], 'groupOfUniqueNames')].join('\n'));
    assert.equal(setUp.code, 0, setUp.stderr);
    assert.equal((await tool(c, 'ldapdelete', [userDn(26)])).code, 0);
    assert.deepEqual(await values(c, groupDn('ri'), 'member'), [userDn(27)]);
    assert.equal((await tool(c, 'ldapmodrdn', ['-r', userDn(27), 'uid=renamed'])).code, 0);
    assert.deepEqual(await values(c, groupDn('ri'), 'member'), [`uid=renamed,${PEOPLE}`]);
    assert.deepEqual(await values(c, groupDn('ri-unique'), 'uniqueMember'), [`uid=renamed,${PEOPLE}#'1'B`]);
    assert.equal((await tool(c, 'ldapmodrdn', ['-r', '-s', GROUPS, `uid=renamed,${PEOPLE}`, 'uid=moved'])).code, 0);
    assert.deepEqual(await values(c, groupDn('ri'), 'member'), [`uid=moved,${GROUPS}`]);
    assert.deepEqual((await values(c, `uid=moved,${GROUPS}`, 'memberOf')).sort(), [groupDn('ri'), groupDn('ri-unique')].sort());
    assert.deepEqual(await values(c, groupDn('ri'), 'modifiersName'), [c.server.adminDn]);
    assert.equal((await tool(c, 'ldapmodrdn', ['-r', groupDn('ri'), 'cn=ri2'])).code, 0, 'renaming a group');
    assert.deepEqual((await values(c, `uid=moved,${GROUPS}`, 'memberOf')).sort(), [groupDn('ri2'), groupDn('ri-unique')].sort());
  });
});

describe('leveldap serve --memberof-nested', { skip }, () => {
  let c: Client;

  before(async () => { c = client(await startLeveldap({ users: 30, ldif: GROUPS_LDIF, args: ['--memberof-nested'] })); });
  after(async () => { await c?.server.stop(); });

  test('memberOf lists every group reached through nesting; the cycle ends; a group is not its own member', async () => {
    const user = await memberOf(c, '(uid=user.3)');
    assert.deepEqual(user.get(userDn(3).toLowerCase())?.sort(), lower(groupDn('admins'), groupDn('big'), groupDn('ops'), groupDn('top')));
    const admins = await memberOf(c, '(cn=admins)');
    assert.deepEqual(admins.get(groupDn('admins').toLowerCase())?.sort(), lower(groupDn('ops'), groupDn('top')));
  });

  test('(memberOf=G) matches members through nesting, as memberOf lists them; compare too', async () => {
    assert.deepEqual(await found(c, `(memberOf=${groupDn('top')})`), lower(groupDn('admins'), groupDn('ops'), userDn(1), userDn(2), userDn(3)));
    assert.equal((await tool(c, 'ldapcompare', [userDn(3), `memberOf:${groupDn('top')}`])).code, 6);
  });
});

describe('leveldap serve: the caps on nested groups and referential integrity', { skip }, () => {
  let c: Client;

  before(async () => { c = client(await startLeveldap({ users: 30, ldif: GROUPS_LDIF, args: ['--max-nested-groups', '2', '--max-refint-groups', '2'] })); });
  after(async () => { await c?.server.stop(); });

  test('a filter whose walk passes --max-nested-groups answers adminLimitExceeded (11); within it, it is answered', async () => {
    const refused = await tool(c, 'ldapsearch', ['-LLL', '-b', BASE, `(memberOf:${IN_CHAIN}:=${groupDn('top')})`, '1.1']);
    assert.equal(refused.code, 11, refused.stderr);
    assert.match(refused.stderr, /expands more than 2 groups \(--max-nested-groups\)/);
    assert.deepEqual(await found(c, `(member:${IN_CHAIN}:=${userDn(4)})`), lower(groupDn('big'), groupDn('uniq')));
  });

  test('a delete or rename that would update more groups than --max-refint-groups is refused (11), nothing changed', async () => {
    const refused = await tool(c, 'ldapdelete', [userDn(1)]);
    assert.equal(refused.code, 11, refused.stderr);
    assert.match(refused.stderr, /is a member of 3 groups; a delete or rename updates at most 2/);
    assert.equal((await tool(c, 'ldapmodrdn', ['-r', userDn(1), 'uid=x'])).code, 11);
    assert.deepEqual(await found(c, '(uid=user.1)'), lower(userDn(1)));
    assert.ok((await values(c, groupDn('admins'), 'member')).includes(userDn(1)));
    assert.equal((await tool(c, 'ldapdelete', [userDn(2)])).code, 0, 'two groups: within the cap');
  });
});

describe('leveldap serve: groups and memberOf survive kill -9 right after acknowledged writes', { skip }, () => {
  const CLIENTS = 6;
  const KILL_AFTER = 90;
  let server: LeveldapServer;
  let restarted: LeveldapServer | undefined;

  before(async () => {
    const groups = Array.from({ length: CLIENTS }, (_, g) => group(`burst-${g}`, [userDn(g)])).join('\n');
    server = await startLeveldap({ users: 40, ldif: [GROUPS_LDIF, groups].join('\n') });
  });
  after(async () => {
    await restarted?.stop();
    await server?.stop();
  });

  async function adminConnection(): Promise<RawConnection> {
    const connection = await RawConnection.open(server.port);
    const bound = await exchange(connection, 1, bindRequest(1, server.adminDn, server.adminPassword));
    assert.equal(bound.code, 0, bound.message);
    return connection;
  }

  test('adds of members from 6 clients, a delete and a rename of members, SIGKILL right after: every acknowledged change is there', async () => {
    // Referential integrity first: user.1 deleted (named by admins, uniq, big), user.3 renamed (ops, big).
    const setUp = await adminConnection();
    assert.equal((await exchange(setUp, 2, deleteRequest(2, userDn(1)))).code, 0);
    assert.equal((await exchange(setUp, 3, modifyDnRequest(3, userDn(3), 'uid=carol', true))).code, 0);
    setUp.destroy();
    const acked: { group: string; member: string }[] = [];
    let killed = false;
    const exit = once(server.process, 'exit');
    await Promise.all(Array.from({ length: CLIENTS }, async (_, g) => {
      const connection = await adminConnection();
      try {
        for (let n = 0, id = 2; !killed; n += 1, id += 1) {
          const member = `uid=member-${g}-${n},${PEOPLE}`;
          connection.write(modifyRequest(id, groupDn(`burst-${g}`), [{ op: 'add', attribute: 'member', values: [member] }]));
          const response = await answer(connection, id, 10_000);
          if (!response) return;
          assert.equal(response.code, 0, response.message);
          acked.push({ group: groupDn(`burst-${g}`), member });
          if (!killed && acked.length >= KILL_AFTER) {
            killed = true;
            server.process.kill('SIGKILL');
          }
        }
      } finally {
        connection.destroy();
      }
    }));
    const [, signal] = await exit;
    assert.equal(signal, 'SIGKILL');

    restarted = await startLeveldap({ dir: server.dir });
    const c = client(restarted);
    for (let g = 0; g < CLIENTS; g += 1) {
      const members = new Set((await values(c, groupDn(`burst-${g}`), 'member')).map((dn) => dn.toLowerCase()));
      const lost = acked.filter((ack) => ack.group === groupDn(`burst-${g}`) && !members.has(ack.member.toLowerCase()));
      assert.deepEqual(lost, [], `group burst-${g}: acknowledged members missing`);
      // The memberof keys were in the same batch: (memberOf=G) reads them (the members do not exist: the store skips those).
      const existing = g === 1 ? [] : [g === 3 ? `uid=carol,${PEOPLE}` : userDn(g)];
      assert.deepEqual(await found(c, `(memberOf=${groupDn(`burst-${g}`)})`), lower(...existing));
    }
    const lastAck = acked.at(-1)!;
    const ghost = await tool(c, 'ldapadd', [], ldif(`dn: ${lastAck.member}`, 'objectClass: account', `uid: ${lastAck.member.slice(4, lastAck.member.indexOf(','))}`));
    assert.equal(ghost.code, 0, ghost.stderr);
    assert.deepEqual(await values(c, lastAck.member, 'memberOf'), [lastAck.group], 'the last acknowledged member has its memberOf once it exists');
    assert.deepEqual((await values(c, `uid=carol,${PEOPLE}`, 'memberOf')).sort(), [groupDn('big'), groupDn('burst-3'), groupDn('ops')].sort());
    assert.ok(!(await values(c, groupDn('admins'), 'member')).includes(userDn(1)), 'the deleted member is gone from its groups');
    assert.deepEqual(await found(c, `(memberOf=${groupDn('uniq')})`), lower(userDn(4)));
  });
});
