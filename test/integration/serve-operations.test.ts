/**
 * `leveldap serve` driven by the real OpenLDAP clients (ldapwhoami, ldapsearch, ldapcompare,
 * ldapadd, ...): binds, the root DSE, scopes, every filter type, attribute selection, limits,
 * paged results, errors with their result codes, userPassword visibility, compare,
 * --no-anonymous-read, the access log, and a clean stop on SIGTERM. Writes have their own
 * suites (serve-writes, serve-access-control, serve-password-modify, serve-write-durability).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/harness/run.js';
import { leveldapBin } from '../helpers/paths.js';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection, Op, NOTICE_OF_DISCONNECTION, type Credentials, type LdifEntry } from '../helpers/ldap-client.js';
import { answer, bindRequest, modifyRequest } from '../helpers/ldap-requests.js';
import { operationRecords, waitForOperation } from '../helpers/server-log.js';

const BASE = 'dc=example,dc=com';
const PEOPLE = `ou=People,${BASE}`;
const SPECIAL = `ou=Special,${BASE}`;
const USERS = 1000;
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;
/** A password used only by the probe entry: the access log must never show it. */
const PROBE_PASSWORD = 'Pr0be-only-secret-7d1c9a';
const PROBE_DN = `uid=probe,${SPECIAL}`;
const PROBE_LDIF = [
  `dn: ${SPECIAL}`, 'objectClass: top', 'objectClass: organizationalUnit', 'ou: Special', '',
  `dn: ${PROBE_DN}`, 'objectClass: top', 'objectClass: person', 'objectClass: organizationalPerson', 'objectClass: inetOrgPerson',
  'uid: probe', 'cn: Probe Person', 'sn: Person', `userPassword: ${PROBE_PASSWORD}`, '',
].join('\n');
/** Entries under dc=example,dc=com: the base, ou=People, the users, ou=Special and the probe. */
const ALL_ENTRIES = USERS + 4;

const TOOLS = ['ldapsearch', 'ldapwhoami', 'ldapcompare', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldapmodrdn', 'ldappasswd'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

const user = (n: number): Credentials => ({ dn: userDn(n), password: 'password' });

describe('leveldap serve with the OpenLDAP clients', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;
  /** The generated data (make-ldif's default seed), to compute expected results independently. */
  let generated: LdifEntry[];

  before(async () => {
    server = await startLeveldap({ users: USERS, ldif: PROBE_LDIF, args: ['--log-level', 'info'] });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
    const made = await run(process.execPath, [leveldapBin, 'make-ldif', '--users', String(USERS)]);
    assert.equal(made.code, 0, made.stderr);
    generated = parseLdifOutput(made.stdout);
    assert.equal(generated.length, USERS + 2);
  });

  after(async () => {
    await server?.stop();
  });

  const search = (args: readonly string[], as?: Credentials) => ldapTool('ldapsearch', server.url, ['-LLL', ...args], as);
  const whoami = (as?: Credentials) => ldapTool('ldapwhoami', server.url, [], as);
  const compare = (dn: string, assertion: string, as?: Credentials) => ldapTool('ldapcompare', server.url, [dn, assertion], as);

  /** ldapsearch's entries and exit code; asserts the output parses. */
  async function entries(args: readonly string[], as?: Credentials): Promise<{ code: number; entries: LdifEntry[]; stderr: string }> {
    const result = await search(args, as);
    return { code: result.code, entries: parseLdifOutput(result.stdout), stderr: result.stderr };
  }

  /** The generated entries under ou=People (itself included), i.e. a sub search there. */
  const peopleSubtree = () => generated.filter((entry) => entry.dn.toLowerCase().endsWith(PEOPLE.toLowerCase()));
  const first = (entry: LdifEntry, name: string) => valuesOf(entry, name)[0] ?? '';
  const generatedUser = (n: number) => {
    const found = generated.find((entry) => entry.dn === userDn(n));
    assert.ok(found, userDn(n));
    return found;
  };

  describe('bind (ldapwhoami)', () => {
    test('a user: exit 0, dn:uid=user.1,...', async () => {
      const result = await whoami(user(1));
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), `dn:${userDn(1)}`);
    });

    test('the admin: exit 0, dn:cn=Directory Manager', async () => {
      const result = await whoami(admin);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), `dn:${server.adminDn}`);
    });

    test('a DN written with stray spaces: Who Am I answers it without them, case kept', async () => {
      const spaced = { dn: `uid = user.1 , ou=People,  dc=example , dc=com`, password: 'password' };
      const result = await whoami(spaced);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), 'dn:uid=user.1,ou=People,dc=example,dc=com');
    });

    test('anonymous: exit 0, "anonymous"', async () => {
      const result = await whoami();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), 'anonymous');
    });

    test('wrong password: exit 49 (invalidCredentials)', async () => {
      const result = await whoami({ dn: userDn(1), password: 'not-the-password' });
      assert.equal(result.code, 49, result.stderr);
      assert.match(result.stderr, /Invalid credentials \(49\)/);
    });

    test('wrong admin password: exit 49', async () => {
      const result = await whoami({ dn: server.adminDn, password: `${server.adminPassword}x` });
      assert.equal(result.code, 49, result.stderr);
    });

    test('unknown DN: exit 49, the same answer as a wrong password', async () => {
      const result = await whoami({ dn: `uid=nobody,${PEOPLE}`, password: 'password' });
      assert.equal(result.code, 49, result.stderr);
      const outside = await whoami({ dn: 'uid=x,dc=elsewhere', password: 'password' });
      assert.equal(outside.code, 49, outside.stderr);
    });

    test('a DN with an empty password (unauthenticated bind): exit 53 (unwillingToPerform)', async () => {
      const fromFile = await whoami({ dn: userDn(1), password: '' });
      assert.equal(fromFile.code, 53, fromFile.stderr);
      const fromArgument = await run('ldapwhoami', ['-x', '-H', server.url, '-D', userDn(1), '-w', '']);
      assert.equal(fromArgument.code, 53, fromArgument.stderr);
      assert.match(fromArgument.stderr, /unwilling to perform \(53\)/i);
    });

    test('a malformed bind DN: exit 34 (invalidDNSyntax)', async () => {
      const result = await whoami({ dn: 'not a dn', password: 'password' });
      assert.equal(result.code, 34, result.stderr);
      assert.match(result.stderr, /Invalid DN syntax \(34\)/);
    });
  });

  describe('root DSE', () => {
    test('with +: naming context, LDAPv3, paged results control, Who Am I, vendor', async () => {
      const { code, entries: found, stderr } = await entries(['-b', '', '-s', 'base', '+']);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, 1);
      const dse = found[0]!;
      assert.equal(dse.dn, '');
      assert.ok(valuesOf(dse, 'namingContexts').includes(BASE), `namingContexts ${valuesOf(dse, 'namingContexts')}`);
      assert.deepEqual(valuesOf(dse, 'supportedLDAPVersion'), ['3']);
      assert.ok(valuesOf(dse, 'supportedControl').includes('1.2.840.113556.1.4.319'));
      assert.ok(valuesOf(dse, 'supportedExtension').includes('1.3.6.1.4.1.4203.1.11.3'));
      assert.deepEqual(valuesOf(dse, 'vendorName'), ['leveldap']);
      assert.deepEqual(valuesOf(dse, 'objectClass'), [], 'objectClass is a user attribute: not returned for + alone');
    });

    test('without +: objectClass only', async () => {
      const { code, entries: found, stderr } = await entries(['-b', '', '-s', 'base']);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, 1);
      assert.deepEqual([...found[0]!.attributes.keys()].map((name) => name.toLowerCase()), ['objectclass']);
      assert.ok(valuesOf(found[0]!, 'objectClass').includes('top'));
    });

    test('attributes by name, in any case', async () => {
      const { code, entries: found } = await entries(['-b', '', '-s', 'base', 'NAMINGCONTEXTS', 'vendorname']);
      assert.equal(code, 0);
      assert.deepEqual([...found[0]!.attributes.keys()].map((name) => name.toLowerCase()).sort(), ['namingcontexts', 'vendorname']);
    });
  });

  describe('search: scopes, limits, attribute selection', () => {
    test('base scope: one entry', async () => {
      const { code, entries: found } = await entries(['-b', PEOPLE, '-s', 'base', '1.1'], admin);
      assert.equal(code, 0);
      assert.deepEqual(found.map((entry) => entry.dn), [PEOPLE]);
    });

    test('one-level under ou=People as the admin: all 1,000 users', async () => {
      const { code, entries: found, stderr } = await entries(['-b', PEOPLE, '-s', 'one', '1.1'], admin);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, USERS);
      assert.equal(new Set(found.map((entry) => entry.dn.toLowerCase())).size, USERS);
      assert.ok(found.every((entry) => /^uid=user\.\d+,ou=People,dc=example,dc=com$/.test(entry.dn)));
    });

    test('one-level under the base: ou=People and ou=Special', async () => {
      const { code, entries: found } = await entries(['-b', BASE, '-s', 'one', '1.1'], admin);
      assert.equal(code, 0);
      assert.deepEqual(found.map((entry) => entry.dn).sort(), [PEOPLE, SPECIAL].sort());
    });

    test('subtree from the base as the admin: every entry', async () => {
      const { code, entries: found } = await entries(['-b', BASE, '-s', 'sub', '1.1'], admin);
      assert.equal(code, 0);
      assert.equal(found.length, ALL_ENTRIES);
    });

    test('anonymous one-level under ou=People: the server size limit, 500 entries and exit 4', async () => {
      const { code, entries: found, stderr } = await entries(['-b', PEOPLE, '-s', 'one', '1.1']);
      assert.equal(code, 4, stderr);
      assert.match(stderr, /Size limit exceeded \(4\)/);
      assert.equal(found.length, 500);
    });

    test('a bound user has the same 500 limit', async () => {
      const asUser = await entries(['-b', PEOPLE, '-s', 'one', '1.1'], user(2));
      assert.equal(asUser.code, 4);
      assert.equal(asUser.entries.length, 500);
    });

    test('client size limit -z 5: exit 4 and 5 entries (also for the admin)', async () => {
      const anonymous = await entries(['-z', '5', '-b', PEOPLE, '1.1']);
      assert.equal(anonymous.code, 4, anonymous.stderr);
      assert.equal(anonymous.entries.length, 5);
      const asAdmin = await entries(['-z', '5', '-b', PEOPLE, '1.1'], admin);
      assert.equal(asAdmin.code, 4, asAdmin.stderr);
      assert.equal(asAdmin.entries.length, 5);
    });

    test('a client size limit that is not reached: exit 0', async () => {
      const { code, entries: found } = await entries(['-z', '5', '-b', PEOPLE, '(|(uid=user.1)(uid=user.2))', '1.1']);
      assert.equal(code, 0);
      assert.equal(found.length, 2);
    });

    test('children scope: the subordinates, not the base', async () => {
      const { code, entries: found } = await entries(['-s', 'children', '-b', BASE, '1.1'], admin);
      assert.equal(code, 0);
      assert.equal(found.length, ALL_ENTRIES - 1);
      assert.ok(!found.some((entry) => entry.dn === BASE));
      const leaf = await entries(['-s', 'children', '-b', userDn(1), '1.1']);
      assert.equal(leaf.code, 0);
      assert.equal(leaf.entries.length, 0);
    });

    test('an unknown critical control: exit 12 (unavailableCriticalExtension); not critical: ignored', async () => {
      const critical = await entries(['-e', '!1.2.3.4.5', '-b', PEOPLE, '(uid=user.1)', '1.1']);
      assert.equal(critical.code, 12, critical.stderr);
      assert.equal(critical.entries.length, 0);
      const optional = await entries(['-e', '1.2.3.4.5', '-b', PEOPLE, '(uid=user.1)', '1.1']);
      assert.equal(optional.code, 0, optional.stderr);
      assert.equal(optional.entries.length, 1);
    });

    test('client time limit -l is accepted', async () => {
      const { code, entries: found, stderr } = await entries(['-l', '30', '-b', PEOPLE, '(uid=user.9)', 'uid']);
      assert.equal(code, 0, stderr);
      assert.deepEqual(found.map((entry) => valuesOf(entry, 'uid')), [['user.9']]);
    });

    test('mixed-case base DN, filter attribute and value, and requested attribute names', async () => {
      const { code, entries: found, stderr } = await entries(['-b', 'OU=people,DC=Example,DC=COM', '(UID=USER.7)', 'CN', 'Mail']);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, 1);
      const entry = found[0]!;
      assert.equal(entry.dn.toLowerCase(), userDn(7).toLowerCase());
      assert.deepEqual(valuesOf(entry, 'cn'), valuesOf(generatedUser(7), 'cn'));
      assert.deepEqual(valuesOf(entry, 'mail'), ['user.7@example.com']);
      assert.deepEqual([...entry.attributes.keys()].map((name) => name.toLowerCase()).sort(), ['cn', 'mail']);
    });

    test('1.1: the DN and no attributes', async () => {
      const { code, entries: found } = await entries(['-b', PEOPLE, '(uid=user.7)', '1.1']);
      assert.equal(code, 0);
      assert.equal(found.length, 1);
      assert.equal(found[0]!.attributes.size, 0);
    });

    test('+: operational attributes only (entryUUID, createTimestamp, hasSubordinates)', async () => {
      const { code, entries: found } = await entries(['-b', PEOPLE, '(uid=user.7)', '+']);
      assert.equal(code, 0);
      const entry = found[0]!;
      assert.match(valuesOf(entry, 'entryUUID')[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.match(valuesOf(entry, 'createTimestamp')[0] ?? '', /^\d{14}Z$/);
      assert.deepEqual(valuesOf(entry, 'hasSubordinates'), ['FALSE']);
      assert.deepEqual(valuesOf(entry, 'entryDN'), [userDn(7)]);
      assert.deepEqual(valuesOf(entry, 'cn'), [], 'no user attributes with + alone');
      assert.deepEqual(valuesOf(entry, 'objectClass'), []);
      const people = await entries(['-b', PEOPLE, '-s', 'base', 'hasSubordinates']);
      assert.deepEqual(valuesOf(people.entries[0]!, 'hasSubordinates'), ['TRUE']);
    });

    test('*: all user attributes, no operational ones; * + both', async () => {
      const { code, entries: found } = await entries(['-b', PEOPLE, '(uid=user.7)', '*']);
      assert.equal(code, 0);
      const entry = found[0]!;
      for (const name of ['objectClass', 'cn', 'sn', 'givenName', 'mail', 'uid', 'telephoneNumber', 'description']) {
        assert.deepEqual(valuesOf(entry, name), valuesOf(generatedUser(7), name), name);
      }
      assert.deepEqual(valuesOf(entry, 'entryUUID'), []);
      assert.deepEqual(valuesOf(entry, 'createTimestamp'), []);
      const both = await entries(['-b', PEOPLE, '(uid=user.7)', '*', '+']);
      assert.equal(valuesOf(both.entries[0]!, 'entryUUID').length, 1);
      assert.equal(valuesOf(both.entries[0]!, 'cn').length, 1);
    });

    test('typesOnly (-A): attribute names without values', async () => {
      const { code, entries: found } = await entries(['-A', '-b', PEOPLE, '(uid=user.7)', 'cn', 'mail', 'uid']);
      assert.equal(code, 0);
      const entry = found[0]!;
      assert.deepEqual([...entry.attributes.keys()].map((name) => name.toLowerCase()).sort(), ['cn', 'mail', 'uid']);
      for (const values of entry.attributes.values()) assert.deepEqual(values, [''], 'no values');
    });
  });

  describe('search: filters', () => {
    /** Runs the filter as the admin under ou=People (sub) and compares the DNs with the expected predicate's. */
    async function expectFilter(filter: string, predicate: (entry: LdifEntry) => boolean, base = PEOPLE): Promise<number> {
      const { code, entries: found, stderr } = await entries(['-b', base, filter, '1.1'], admin);
      assert.equal(code, 0, `${filter}: ${stderr}`);
      const expected = peopleSubtree().filter(predicate).map((entry) => entry.dn.toLowerCase()).sort();
      assert.deepEqual(found.map((entry) => entry.dn.toLowerCase()).sort(), expected, filter);
      return expected.length;
    }

    const lower = (entry: LdifEntry, name: string) => valuesOf(entry, name).map((value) => value.toLowerCase());

    test('equality, in any case of name and value', async () => {
      assert.equal(await expectFilter('(uid=user.42)', (entry) => lower(entry, 'uid').includes('user.42')), 1);
      const sn = first(generatedUser(42), 'sn');
      const count = await expectFilter(`(SN=${sn.toUpperCase()})`, (entry) => lower(entry, 'sn').includes(sn.toLowerCase()));
      assert.ok(count >= 1);
    });

    test('substrings: any, initial, final, initial+any+final', async () => {
      assert.ok(await expectFilter('(cn=*a*)', (entry) => lower(entry, 'cn').some((value) => value.includes('a'))) > 100);
      const cn = first(generatedUser(7), 'cn');
      const initial = cn.slice(0, 2);
      assert.ok(await expectFilter(`(cn=${initial}*)`, (entry) => lower(entry, 'cn').some((value) => value.startsWith(initial.toLowerCase()))) >= 1);
      const final = cn.slice(-3);
      assert.ok(await expectFilter(`(cn=*${final})`, (entry) => lower(entry, 'cn').some((value) => value.endsWith(final.toLowerCase()))) >= 1);
      const [start, middle, end] = [cn.slice(0, 1), cn.slice(2, 3), cn.slice(-1)];
      await expectFilter(`(cn=${start}*${middle}*${end})`, (entry) => lower(entry, 'cn').some((value) => {
        if (!value.startsWith(start.toLowerCase())) return false;
        const rest = value.slice(start.length);
        const at = rest.indexOf(middle.toLowerCase());
        return at >= 0 && rest.slice(at + middle.length).endsWith(end.toLowerCase());
      }));
    });

    test('ordering: sn>=M and sn<=M (case-insensitive), createTimestamp>= and <=', async () => {
      const geM = await expectFilter('(sn>=M)', (entry) => lower(entry, 'sn').some((value) => value >= 'm'));
      const leM = await expectFilter('(sn<=M)', (entry) => lower(entry, 'sn').some((value) => value <= 'm'));
      assert.ok(geM > 0 && leM > 0);
      assert.equal(geM + leM, USERS, 'no sn equals "M" exactly, so the two halves partition the users');
      await expectFilter('(sn>=m)', (entry) => lower(entry, 'sn').some((value) => value >= 'm'));
      await expectFilter('(createTimestamp>=19700101000000Z)', () => true);
      await expectFilter('(createTimestamp<=19700101000000Z)', () => false);
      await expectFilter('(createTimestamp<=29991231235959Z)', () => true);
    });

    test('presence', async () => {
      assert.equal(await expectFilter('(mail=*)', (entry) => valuesOf(entry, 'mail').length > 0), USERS);
      assert.equal(await expectFilter('(objectClass=*)', () => true), USERS + 1);
      await expectFilter('(carLicense=*)', () => false);
    });

    test('approx (sn~=...)', async () => {
      const sn = first(generatedUser(11), 'sn');
      assert.ok(await expectFilter(`(sn~=${sn.toLowerCase()})`, (entry) => lower(entry, 'sn').includes(sn.toLowerCase())) >= 1);
    });

    test('not, and, or', async () => {
      const sn = first(generatedUser(5), 'sn');
      const hasSn = (entry: LdifEntry) => lower(entry, 'sn').includes(sn.toLowerCase());
      await expectFilter(`(!(sn=${sn}))`, (entry) => !hasSn(entry));
      await expectFilter(`(&(sn=${sn})(uid=user.5))`, (entry) => hasSn(entry) && lower(entry, 'uid').includes('user.5'));
      assert.equal(await expectFilter('(|(uid=user.1)(uid=user.2)(uid=nobody))', (entry) => ['user.1', 'user.2'].includes(lower(entry, 'uid')[0] ?? '')), 2);
      await expectFilter('(&(objectClass=inetOrgPerson)(!(|(uid=user.1)(uid=user.2))))',
        (entry) => lower(entry, 'objectclass').includes('inetorgperson') && !['user.1', 'user.2'].includes(lower(entry, 'uid')[0] ?? ''));
    });

    test('a type the schema does not know is Undefined (RFC 4511 4.5.1.7, as slapd): NOT of it matches nothing', async () => {
      for (const filter of ['(fooBar=x)', '(!(fooBar=x))', '(fooBar=*)', '(!(fooBar=*))', '(fooBar>=a)', '(fooBar=x*)', '(!(fooBar:caseIgnoreMatch:=x))']) {
        assert.equal(await expectFilter(filter, () => false), 0, filter);
      }
      assert.equal(await expectFilter('(|(fooBar=x)(uid=user.42))', (entry) => lower(entry, 'uid').includes('user.42')), 1);
      await expectFilter('(&(objectClass=person)(!(fooBar=x)))', () => false);
    });

    test('extensible: uid:caseExactMatch:= (exact case only), ou:dn:=People', async () => {
      assert.equal(await expectFilter('(uid:caseExactMatch:=user.5)', (entry) => valuesOf(entry, 'uid').includes('user.5')), 1);
      assert.equal(await expectFilter('(uid:caseExactMatch:=USER.5)', () => false), 0);
      assert.equal(await expectFilter('(uid:2.5.13.5:=user.5)', (entry) => valuesOf(entry, 'uid').includes('user.5')), 1);
      // ou is in the DN of every entry under ou=People, and an attribute of ou=People itself.
      const { code, entries: found } = await entries(['-b', BASE, '(ou:dn:=People)', '1.1'], admin);
      assert.equal(code, 0);
      assert.equal(found.length, USERS + 1);
      const withoutDn = await entries(['-b', BASE, '(ou=People)', '1.1'], admin);
      assert.deepEqual(withoutDn.entries.map((entry) => entry.dn), [PEOPLE]);
    });

    test('a filter matching nothing: no entries, exit 0', async () => {
      const result = await search(['-b', PEOPLE, '(uid=no-such-user)']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(parseLdifOutput(result.stdout).length, 0);
    });
  });

  describe('search: paged results, errors', () => {
    test('paged results (pr=100/noprompt) as anonymous: the 500 limit holds over all pages (exit 4), as slapd\'s size.prtotal', async () => {
      const { code, entries: found, stderr } = await entries(['-E', 'pr=100/noprompt', '-b', PEOPLE, '1.1']);
      assert.equal(code, 4, stderr);
      assert.equal(found.length, 500, `entries returned over all pages (stderr: ${stderr.trim()})`);
      assert.equal(new Set(found.map((entry) => entry.dn.toLowerCase())).size, 500, 'no entry twice');
    });

    test('paged results (pr=100/noprompt) as the admin: all 1,001 entries, exit 0 (no limit)', async () => {
      const { code, entries: found, stderr } = await entries(['-E', 'pr=100/noprompt', '-b', PEOPLE, '1.1'], admin);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, USERS + 1);
      assert.equal(new Set(found.map((entry) => entry.dn.toLowerCase())).size, USERS + 1, 'no entry twice');
    });

    test('paged results as the admin, page size 300, one-level: all 1,000 users', async () => {
      const { code, entries: found, stderr } = await entries(['-E', 'pr=300/noprompt', '-b', PEOPLE, '-s', 'one', '1.1'], admin);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, USERS);
    });

    test('paged results with fewer entries than a page: one page, exit 0', async () => {
      const { code, entries: found, stderr } = await entries(['-E', 'pr=100/noprompt', '-b', PEOPLE, '(|(uid=user.1)(uid=user.2))', '1.1']);
      assert.equal(code, 0, stderr);
      assert.equal(found.length, 2);
    });

    test('an equality answer known at once (read before, kept) pages like one read: page size 1, every entry once, twice over; a paged base search', async () => {
      const counts = new Map<string, number>();
      for (const entry of generated) for (const sn of valuesOf(entry, 'sn')) counts.set(sn, (counts.get(sn) ?? 0) + 1);
      const [sn] = [...counts].find(([, count]) => count >= 2 && count <= 16) ?? [];
      assert.ok(sn, 'some sn shared by 2-16 users');
      const expected = generated.filter((entry) => valuesOf(entry, 'sn').includes(sn)).map((entry) => entry.dn.toLowerCase()).sort();
      for (const round of [1, 2]) {
        const { code, entries: found, stderr } = await entries(['-E', 'pr=1/noprompt', '-b', PEOPLE, `(sn=${sn})`, 'sn'], admin);
        assert.equal(code, 0, stderr);
        assert.deepEqual(found.map((entry) => entry.dn.toLowerCase()).sort(), expected, `round ${round}`);
      }
      const base = await entries(['-E', 'pr=1/noprompt', '-s', 'base', '-b', userDn(3), '1.1'], admin);
      assert.equal(base.code, 0, base.stderr);
      assert.deepEqual(base.entries.map((entry) => entry.dn), [userDn(3)]);
    });

    test('no such base: exit 32 with the matched DN', async () => {
      const result = await ldapTool('ldapsearch', server.url, ['-b', `uid=nobody,${PEOPLE}`]);
      assert.equal(result.code, 32, result.stderr);
      assert.match(result.stdout, /result: 32 No such object/);
      assert.match(result.stdout, /^matchedDN: ou=People,dc=example,dc=com$/m);
    });

    test('invalid base DN: exit 34', async () => {
      const result = await ldapTool('ldapsearch', server.url, ['-b', 'not a dn']);
      assert.equal(result.code, 34, result.stderr);
      assert.match(result.stdout, /result: 34 Invalid DN syntax/);
    });
  });

  describe('userPassword visibility', () => {
    const passwordOf = async (n: number, as?: Credentials) => {
      const { code, entries: found } = await entries(['-b', userDn(n), '-s', 'base', '*'], as);
      assert.equal(code, 0);
      assert.equal(found.length, 1);
      return valuesOf(found[0]!, 'userPassword');
    };

    test('hidden from anonymous clients and from other users', async () => {
      assert.deepEqual(await passwordOf(3), []);
      assert.deepEqual(await passwordOf(3, user(4)), []);
      const named = await entries(['-b', userDn(3), '-s', 'base', 'userPassword']);
      assert.deepEqual(valuesOf(named.entries[0]!, 'userPassword'), []);
    });

    test('shown to the admin and to the user reading its own entry', async () => {
      const asAdmin = await passwordOf(3, admin);
      assert.equal(asAdmin.length, 1);
      assert.match(asAdmin[0]!, /^\{SSHA512\}/);
      assert.deepEqual(await passwordOf(3, user(3)), asAdmin);
    });
  });

  describe('compare (ldapcompare)', () => {
    test('equal value: exit 6 (compareTrue), in any case of the value', async () => {
      const cn = first(generatedUser(3), 'cn');
      const result = await compare(userDn(3), `cn:${cn}`);
      assert.equal(result.code, 6, result.stderr);
      assert.match(result.stdout, /TRUE/);
      assert.equal((await compare(userDn(3), `CN:${cn.toUpperCase()}`)).code, 6);
    });

    test('different value: exit 5 (compareFalse)', async () => {
      const result = await compare(userDn(3), 'cn:Not Their Name');
      assert.equal(result.code, 5, result.stderr);
      assert.match(result.stdout, /FALSE/);
    });

    test('attribute absent from the entry: exit 16 (noSuchAttribute)', async () => {
      const result = await compare(userDn(3), 'carLicense:ABC-123');
      assert.equal(result.code, 16, result.stderr);
    });

    test('a type the schema does not know: exit 17 (undefinedAttributeType), as slapd', async () => {
      const result = await compare(userDn(3), 'fooBar:x');
      assert.equal(result.code, 17, result.stderr);
      assert.match(result.stdout + result.stderr, /attribute type undefined/);
    });

    test('no such entry: exit 32', async () => {
      const result = await compare(`uid=nobody,${PEOPLE}`, 'cn:x');
      assert.equal(result.code, 32, result.stderr);
    });

    test('userPassword as anonymous or as another user: exit 50 (insufficientAccessRights)', async () => {
      const result = await compare(userDn(3), 'userPassword:password');
      assert.equal(result.code, 50, result.stderr);
      const other = await compare(userDn(3), 'userPassword:password', user(4));
      assert.equal(other.code, 50, other.stderr);
    });

    test('userPassword by the admin and by the entry itself: compared with the stored value', async () => {
      const stored = await entries(['-b', userDn(3), '-s', 'base', 'userPassword'], admin);
      const [hash] = valuesOf(stored.entries[0]!, 'userPassword');
      assert.ok(hash?.startsWith('{SSHA512}'), hash);
      assert.equal((await compare(userDn(3), `userPassword:${hash}`, admin)).code, 6);
      assert.equal((await compare(userDn(3), `userPassword:${hash}`, user(3))).code, 6);
      assert.equal((await compare(userDn(3), 'userPassword:{SSHA512}AAAA', admin)).code, 5);
    });
  });

  describe('access log', () => {
    test('binds and searches are logged with op, dn/base, code, wtime and etime; no password value is ever logged', async () => {
      // Binds with every password this test knows, right and wrong; a filter and a compare on userPassword.
      assert.equal((await whoami({ dn: PROBE_DN, password: PROBE_PASSWORD })).code, 0);
      assert.equal((await whoami({ dn: PROBE_DN, password: `${PROBE_PASSWORD}-wrong` })).code, 49);
      assert.equal((await whoami(admin)).code, 0);
      assert.equal((await whoami({ dn: server.adminDn, password: `${server.adminPassword}-wrong` })).code, 49);
      const filtered = await search(['-b', SPECIAL, `(userPassword=${PROBE_PASSWORD})`, '1.1'], admin);
      assert.equal(filtered.code, 0, filtered.stderr);
      const substring = await search(['-b', SPECIAL, `(userPassword=${PROBE_PASSWORD.slice(0, 12)}*)`, '1.1'], admin);
      assert.equal(substring.code, 0, substring.stderr);
      assert.ok([5, 6].includes((await compare(PROBE_DN, `userPassword:${PROBE_PASSWORD}`, admin)).code), 'compareFalse or compareTrue');
      const marker = `uid=marker-${process.pid},${PEOPLE}`;
      assert.equal((await search(['-b', marker, '-s', 'base'])).code, 32);

      const bind = await waitForOperation(server, (record) => record['op'] === 'bind' && record['dn'] === PROBE_DN && record['code'] === 0);
      assert.equal(typeof bind['etime'], 'number');
      await waitForOperation(server, (record) => record['op'] === 'bind' && record['dn'] === PROBE_DN && record['code'] === 49);
      await waitForOperation(server, (record) => record['op'] === 'bind' && record['dn'] === server.adminDn && record['code'] === 49);
      const miss = await waitForOperation(server, (record) => record['op'] === 'search' && record['base'] === marker);
      assert.equal(miss['code'], 32);
      assert.equal(typeof miss['etime'], 'number');
      const found = await waitForOperation(server, (record) => record['op'] === 'search' && record['base'] === SPECIAL);
      assert.equal(found['code'], 0);
      await waitForOperation(server, (record) => record['op'] === 'compare' && record['dn'] === PROBE_DN);

      for (const record of operationRecords(server)) {
        assert.equal(typeof record['op'], 'string');
        assert.equal(typeof record['code'], 'number');
        assert.equal(typeof record['wtime'], 'number');
        assert.equal(typeof record['etime'], 'number');
      }
      const everything = server.logs().join('\n') + server.stderr();
      for (const secret of [server.adminPassword, PROBE_PASSWORD, PROBE_PASSWORD.slice(0, 12)]) {
        assert.ok(!everything.includes(secret), `the log must not contain ${JSON.stringify(secret)}`);
      }
      assert.doesNotMatch(everything, /:\s*"password"/, 'no field has the value "password" (the users\' password)');
    });
  });
});

describe('leveldap serve --no-anonymous-read', { skip }, () => {
  let server: LeveldapServer;

  before(async () => {
    server = await startLeveldap({ users: 20, args: ['--no-anonymous-read'] });
  });

  after(async () => {
    await server?.stop();
  });

  test('anonymous search: exit 50 (insufficientAccessRights)', async () => {
    const result = await ldapTool('ldapsearch', server.url, ['-b', PEOPLE, '(uid=user.1)']);
    assert.equal(result.code, 50, result.stderr);
  });

  test('anonymous compare: exit 50', async () => {
    const result = await ldapTool('ldapcompare', server.url, [userDn(1), 'uid:user.1']);
    assert.equal(result.code, 50, result.stderr);
  });

  test('anonymous bind still works, and the root DSE is still readable', async () => {
    const whoami = await ldapTool('ldapwhoami', server.url, []);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal(whoami.stdout.trim(), 'anonymous');
    const dse = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', '', '-s', 'base', 'namingContexts']);
    assert.equal(dse.code, 0, dse.stderr);
    assert.match(dse.stdout, /namingContexts: dc=example,dc=com/);
  });

  test('a bound user can search and compare', async () => {
    const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', PEOPLE, '(uid=user.1)', 'uid'], user(2));
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(parseLdifOutput(result.stdout).map((entry) => valuesOf(entry, 'uid')), [['user.1']]);
    const compared = await ldapTool('ldapcompare', server.url, [userDn(1), 'uid:user.1'], user(2));
    assert.equal(compared.code, 6, compared.stderr);
  });

  test('a failed bind leaves the connection anonymous: no read', async () => {
    const result = await ldapTool('ldapsearch', server.url, ['-b', PEOPLE, '(uid=user.1)'], { dn: userDn(2), password: 'wrong' });
    assert.equal(result.code, 49, result.stderr);
  });
});

describe('leveldap serve: SIGTERM', { skip }, () => {
  test('operations waiting when the stop begins are answered unavailable (52); the one in progress finishes; exit 0', async () => {
    // A bind runs alone on its connection: modifies sent behind a slow bind wait for it.
    const slow = (await run(process.execPath, [leveldapBin, 'encode-password', '--scheme', 'PBKDF2-SHA256', '--iterations', '2000000', 'slow-secret'])).stdout.trim();
    const server = await startLeveldap({ users: 5, ldif: `dn: uid=slow,ou=People,${BASE}\nobjectClass: inetOrgPerson\nuid: slow\ncn: Slow\nsn: Slow\nuserPassword: ${slow}\n` });
    try {
      const connection = await RawConnection.open(server.port);
      const modifies = [3, 4, 5, 6].map((id) => modifyRequest(id, `uid=user.1,ou=People,${BASE}`, [{ op: 'replace', attribute: 'description', values: [`d${id}`] }]));
      connection.write(Buffer.concat([bindRequest(2, `uid=slow,ou=People,${BASE}`, 'slow-secret'), ...modifies]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const exit = await server.terminate();
      assert.equal(exit.code, 0, server.stderr());
      assert.equal((await answer(connection, 2, 1000))?.code, 0, 'the bind in progress finished');
      for (const id of [3, 4, 5, 6]) {
        const refused = await answer(connection, id, 1000);
        assert.equal(refused?.code, 52, `modify ${id}`);
        assert.equal(refused?.message, 'server shutting down');
      }
      assert.ok(await connection.waitClosed(1000));
    } finally {
      await server.stop();
    }
  });

  test('exits 0 within a few seconds with a client connected, closes the database, and a second start on the same data works', async () => {
    const first = await startLeveldap({ users: 50 });
    try {
      assert.equal((await ldapTool('ldapwhoami', first.url, [], user(1))).code, 0);
      const idle = await RawConnection.open(first.port);
      const exit = await first.terminate();
      assert.equal(exit.signal, null, 'exited by itself, not killed');
      assert.equal(exit.code, 0, first.stderr());
      assert.ok(exit.millis < 5000, `exited after ${Math.round(exit.millis)} ms`);
      assert.ok(await idle.waitClosed(1000), 'the client connection was closed');
      const notice = idle.responses.find((response) => response.messageId === 0);
      if (idle.responses.length > 0) {
        assert.equal(notice?.op, Op.extendedResponse);
        assert.equal(notice?.responseName, NOTICE_OF_DISCONNECTION);
        assert.equal(notice?.code, 52, 'unavailable');
      }
      assert.ok(first.logs().some((line) => line.includes('"stopping"') && line.includes('SIGTERM')), 'logs that it is stopping');

      const second = await startLeveldap({ dir: first.dir });
      try {
        const whoami = await ldapTool('ldapwhoami', second.url, [], user(49));
        assert.equal(whoami.code, 0, whoami.stderr);
        const admin = { dn: second.adminDn, passwordFile: second.adminPasswordFile };
        const all = await ldapTool('ldapsearch', second.url, ['-LLL', '-b', BASE, '1.1'], admin);
        assert.equal(all.code, 0, all.stderr);
        assert.equal(parseLdifOutput(all.stdout).length, 52);
        const imported = await run(process.execPath, [leveldapBin, 'import-ldif', '-', '--data', second.dataDir], '');
        assert.notEqual(imported.code, 0, 'the database is in use by the running server');
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });
});
