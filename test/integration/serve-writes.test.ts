/**
 * Writes through `leveldap serve` with the OpenLDAP clients, as the admin: ldapadd, ldapmodify,
 * ldapmodrdn and ldapdelete succeed and are read back with ldapsearch (indexes, operational
 * attributes, hashed passwords), and every refusal answers its result code
 * (16, 19, 20, 21, 32 with matchedDN, 53, 65, 66, 67, 68). Odd requests over a raw socket get
 * LDAP errors, never `other` (80), and the server keeps serving.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findProgram } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf, RawConnection, type Credentials, type LdifEntry } from '../helpers/ldap-client.js';
import { addRequest, answer, bindRequest, deleteRequest, exchange, modifyDnRequest, modifyRequest } from '../helpers/ldap-requests.js';

const BASE = 'dc=example,dc=com';
const PEOPLE = `ou=People,${BASE}`;
const userDn = (n: number) => `uid=user.${n},${PEOPLE}`;

const TOOLS = ['ldapsearch', 'ldapwhoami', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldapmodrdn'];
const missing = TOOLS.filter((tool) => findProgram(tool) === undefined);
const skip = missing.length > 0 ? `OpenLDAP clients missing (${missing.join(', ')}): apt-get install ldap-utils` : false;

const ldif = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('leveldap serve: writes with the OpenLDAP clients', { skip }, () => {
  let server: LeveldapServer;
  let admin: Credentials;

  before(async () => {
    server = await startLeveldap({ users: 50 });
    admin = { dn: server.adminDn, passwordFile: server.adminPasswordFile };
  });
  after(async () => { await server?.stop(); });

  const tool = (name: string, args: readonly string[], input?: string, as: Credentials | undefined = admin) => ldapTool(name, server.url, args, as, input);
  const add = (input: string) => tool('ldapadd', [], input);
  const modify = (dn: string, ...lines: string[]) => tool('ldapmodify', [], ldif(`dn: ${dn}`, 'changetype: modify', ...lines));
  const rename = (...args: string[]) => tool('ldapmodrdn', args);
  const remove = (...dns: string[]) => tool('ldapdelete', dns);

  async function read(dn: string, ...attributes: string[]): Promise<LdifEntry | undefined> {
    const result = await tool('ldapsearch', ['-LLL', '-b', dn, '-s', 'base', '(objectClass=*)', ...attributes]);
    if (result.code === 32) return undefined;
    assert.equal(result.code, 0, result.stderr);
    return parseLdifOutput(result.stdout)[0];
  }

  async function found(filter: string, base = PEOPLE): Promise<string[]> {
    const result = await tool('ldapsearch', ['-LLL', '-b', base, filter, '1.1']);
    assert.equal(result.code, 0, result.stderr);
    return parseLdifOutput(result.stdout).map((entry) => entry.dn);
  }

  /** Asserts the tool exited with `code` and, when given, printed `pattern`. */
  function refused(result: { code: number; stdout: string; stderr: string }, code: number, pattern?: RegExp): void {
    assert.equal(result.code, code, result.stdout + result.stderr);
    if (pattern) assert.match(result.stdout + result.stderr, pattern);
  }

  describe('ldapadd', () => {
    test('adds an entry: read back with its operational attributes, the password hashed with PBKDF2-SHA256 (10,000)', async () => {
      const dn = `uid=alice,${PEOPLE}`;
      const result = await add(ldif(`dn: ${dn}`, 'objectClass: inetOrgPerson', 'uid: alice', 'cn: Alice Liddell', 'sn: Liddell',
        'mail: alice@example.com', 'userPassword: rabbit-hole'));
      assert.equal(result.code, 0, result.stderr);
      const entry = await read(dn, '*', '+');
      assert.ok(entry);
      assert.deepEqual(valuesOf(entry, 'cn'), ['Alice Liddell']);
      assert.deepEqual(valuesOf(entry, 'creatorsName'), [server.adminDn]);
      assert.deepEqual(valuesOf(entry, 'modifiersName'), [server.adminDn]);
      assert.match(valuesOf(entry, 'createTimestamp')[0] ?? '', /^\d{14}Z$/);
      assert.match(valuesOf(entry, 'entryUUID')[0] ?? '', /^[0-9a-f-]{36}$/);
      assert.match(valuesOf(entry, 'userPassword')[0] ?? '', /^\{PBKDF2-SHA256\}10000\$/);
      assert.deepEqual(await found('(mail=alice@example.com)'), [dn], 'the new entry is indexed');
      const whoami = await tool('ldapwhoami', [], undefined, { dn, password: 'rabbit-hole' });
      assert.equal(whoami.code, 0, whoami.stderr);
    });

    test('an entry without its RDN value gets it (as OpenLDAP does)', async () => {
      const dn = `uid=no-rdn-value,${PEOPLE}`;
      assert.equal((await add(ldif(`dn: ${dn}`, 'objectClass: account', 'description: x'))).code, 0);
      assert.deepEqual(valuesOf((await read(dn, 'uid'))!, 'uid'), ['no-rdn-value']);
      assert.deepEqual(await found('(uid=no-rdn-value)'), [dn]);
    });

    test('refusals: 68 exists, 32 no parent (with matchedDN), 65 no objectClass, 19 server attribute, 20 value twice, 21 syntax', async () => {
      refused(await add(ldif(`dn: ${userDn(1)}`, 'objectClass: account', 'uid: user.1')), 68, /Already exists/);
      refused(await add(ldif(`dn: uid=x,ou=Nowhere,${BASE}`, 'objectClass: account', 'uid: x')), 32, new RegExp(`matched DN: ${BASE}`));
      refused(await add(ldif(`dn: uid=x,${PEOPLE}`, 'uid: x', 'description: no class')), 65, /objectClass/);
      refused(await add(ldif(`dn: uid=x,${PEOPLE}`, 'objectClass: account', 'createTimestamp: 20200101000000Z')), 19, /no user modification/);
      refused(await add(ldif(`dn: uid=x,${PEOPLE}`, 'objectClass: account', 'description: a', 'description: A')), 20, /more than once/);
      refused(await add(ldif(`dn: uid=x,${PEOPLE}`, 'objectClass: posixAccount', 'uidNumber: ten')), 21, /syntax/);
      assert.equal(await read(`uid=x,${PEOPLE}`), undefined, 'nothing was added');
    });
  });

  describe('ldapmodify', () => {
    test('add, replace and delete values; read back; the indexes follow; modifiersName and modifyTimestamp are set', async () => {
      const dn = userDn(2);
      const before = await read(dn, 'cn', 'createTimestamp', 'entryUUID');
      const result = await modify(dn, 'replace: cn', 'cn: Bob Builder', '-', 'add: title', 'title: one', 'title: two',
        '-', 'delete: title', 'title: one', '-', 'add: objectClass', 'objectClass: extensibleObject', '-', 'add: uidNumber', 'uidNumber: 500');
      assert.equal(result.code, 0, result.stderr);
      const after = await read(dn, 'cn', 'title', 'uidNumber', 'modifiersName', 'createTimestamp', 'entryUUID');
      assert.deepEqual(valuesOf(after!, 'cn'), ['Bob Builder']);
      assert.deepEqual(valuesOf(after!, 'title'), ['two']);
      assert.deepEqual(valuesOf(after!, 'modifiersName'), [server.adminDn]);
      assert.deepEqual(valuesOf(after!, 'entryUUID'), valuesOf(before!, 'entryUUID'));
      assert.deepEqual(await found('(cn=bob builder)'), [dn]);
      assert.deepEqual(await found(`(cn=${valuesOf(before!, 'cn')[0]})`), [], 'the old value is no longer indexed');
    });

    test('increment (RFC 4525) adds to an INTEGER attribute', async () => {
      const dn = userDn(3);
      assert.equal((await modify(dn, 'add: objectClass', 'objectClass: extensibleObject', '-', 'add: uidNumber', 'uidNumber: 41')).code, 0);
      assert.equal((await modify(dn, 'increment: uidNumber', 'uidNumber: 1')).code, 0);
      assert.deepEqual(valuesOf((await read(dn, 'uidNumber'))!, 'uidNumber'), ['42']);
    });

    test('refusals: 16 no such value or attribute, 20 value exists, 67 RDN value, 65 objectClass, 19 and 21 on increment, 19 server attribute', async () => {
      const dn = userDn(4);
      refused(await modify(dn, 'delete: title', 'title: absent'), 16, /title: no such attribute/);
      refused(await modify(dn, 'delete: mail', 'mail: other@example.com'), 16, /no such value/);
      refused(await modify(dn, 'add: uid', 'uid: USER.4'), 20, /already exists/);
      refused(await modify(dn, 'delete: uid', 'uid: user.4'), 67, /RDN/);
      refused(await modify(dn, 'replace: uid', 'uid: someone'), 67, /RDN/);
      refused(await modify(dn, 'delete: objectClass'), 65, /objectClass/);
      refused(await modify(dn, 'increment: employeeNumber', 'employeeNumber: 1'), 19, /inappropriate for increment/);
      refused(await modify(dn, 'add: uidNumber', 'uidNumber: 7', '-', 'increment: uidNumber', 'uidNumber: x'), 21, /syntax/);
      refused(await modify(dn, 'increment: gidNumber', 'gidNumber: 1'), 16, /no such attribute/);
      refused(await modify(dn, 'replace: modifyTimestamp', 'modifyTimestamp: 20200101000000Z'), 19, /no user modification/);
      refused(await modify(`uid=nobody,${PEOPLE}`, 'replace: description', 'description: x'), 32, new RegExp(`matched DN: ${PEOPLE}`));
      const entry = await read(dn, 'uid', 'uidNumber', 'objectClass');
      assert.deepEqual(valuesOf(entry!, 'uid'), ['user.4'], 'nothing changed');
      assert.deepEqual(valuesOf(entry!, 'uidNumber'), [], 'a refused modify changes nothing, not even its first part');
    });
  });

  describe('ldapmodrdn', () => {
    test('a new RDN: the old name is gone, the new one found by its index; -r removes the old value', async () => {
      assert.equal((await rename('-r', userDn(5), 'uid=carol')).code, 0);
      assert.equal(await read(userDn(5)), undefined);
      const entry = await read(`uid=carol,${PEOPLE}`, 'uid', 'modifiersName');
      assert.deepEqual(valuesOf(entry!, 'uid'), ['carol']);
      assert.deepEqual(valuesOf(entry!, 'modifiersName'), [server.adminDn]);
      assert.deepEqual(await found('(uid=carol)'), [`uid=carol,${PEOPLE}`]);
      assert.deepEqual(await found('(uid=user.5)'), []);
    });

    test('without -r the old value stays; -s moves the entry under a new superior', async () => {
      assert.equal((await add(ldif(`dn: ou=Moved,${BASE}`, 'objectClass: organizationalUnit', 'ou: Moved'))).code, 0);
      assert.equal((await rename('-s', `ou=Moved,${BASE}`, userDn(6), 'cn=Moved User')).code, 0);
      const entry = await read(`cn=Moved User,ou=Moved,${BASE}`, 'uid', 'cn');
      assert.deepEqual(valuesOf(entry!, 'uid'), ['user.6']);
      assert.ok(valuesOf(entry!, 'cn').includes('Moved User'));
      assert.deepEqual(await found('(uid=user.6)', BASE), [`cn=Moved User,ou=Moved,${BASE}`]);
      const oneLevel = await tool('ldapsearch', ['-LLL', '-b', `ou=Moved,${BASE}`, '-s', 'one', '(objectClass=*)', '1.1']);
      assert.deepEqual(parseLdifOutput(oneLevel.stdout).map((e) => e.dn), [`cn=Moved User,ou=Moved,${BASE}`]);
    });

    test('refusals: 68 target exists, 32 new superior missing (with matchedDN), 53 below itself or below its own child', async () => {
      refused(await rename(userDn(7), 'uid=user.8'), 68, /already exists/);
      refused(await rename('-s', `ou=Nowhere,${BASE}`, userDn(7), 'uid=user.7'), 32, new RegExp(`Matched DN: ${BASE}`, 'i'));
      refused(await rename('-s', userDn(7), PEOPLE, 'ou=People'), 53, /below itself/);
      refused(await rename('-s', userDn(7), userDn(7), 'uid=inside'), 53, /below itself/);
      assert.ok(await read(userDn(7)));
    });
  });

  describe('ldapdelete', () => {
    test('deletes a leaf: gone from reads and from its indexes', async () => {
      assert.equal((await remove(userDn(9))).code, 0);
      assert.equal(await read(userDn(9)), undefined);
      assert.deepEqual(await found('(uid=user.9)'), []);
    });

    test('refusals: 66 a parent, 32 a missing entry (with matchedDN)', async () => {
      refused(await remove(PEOPLE), 66, /subordinate/);
      refused(await remove(`uid=ghost,${PEOPLE}`), 32, new RegExp(`matched DN: ${PEOPLE}`));
      assert.ok(await read(PEOPLE));
    });
  });

  describe('odd requests over a raw socket', () => {
    test('get LDAP errors, never other (80); nothing is logged as failed; the server keeps serving', async () => {
      const connection = await RawConnection.open(server.port);
      try {
        let id = 1;
        assert.equal((await exchange(connection, id, bindRequest(id, server.adminDn, server.adminPassword))).code, 0);
        const odd: Buffer[] = [
          modifyRequest(++id, userDn(10), []),
          modifyRequest(++id, userDn(10), [{ op: 'add', attribute: 'bad name', values: ['x'] }]),
          modifyRequest(++id, userDn(10), [{ op: 'add', attribute: '', values: ['x'] }]),
          modifyRequest(++id, userDn(10), [{ op: 'add', attribute: 'description', values: [Buffer.from([0xff, 0x00, 0xfe])] }]),
          modifyRequest(++id, userDn(10), [{ op: 'add', attribute: 'member', values: ['not a DN'] }]),
          modifyRequest(++id, userDn(10), [{ op: 'add', attribute: 'title', values: ['x'.repeat(200_000)] }]),
          modifyRequest(++id, userDn(10), [{ op: 'increment', attribute: 'uidNumber', values: ['9'.repeat(500)] }]),
          modifyRequest(++id, userDn(10), [{ op: 'replace', attribute: 'userPassword', values: [''] }]),
          modifyRequest(++id, '', [{ op: 'add', attribute: 'description', values: ['root'] }]),
          modifyRequest(++id, 'not a dn', [{ op: 'add', attribute: 'description', values: ['x'] }]),
          addRequest(++id, `uid=odd,${PEOPLE}`, []),
          addRequest(++id, '', [['objectClass', ['top']]]),
          addRequest(++id, `uid=odd\\00,${PEOPLE}`, [['objectClass', ['account']]]),
          addRequest(++id, `cn=a+cn=b,${PEOPLE}`, [['objectClass', ['person']], ['sn', ['x']]]),
          deleteRequest(++id, ''),
          deleteRequest(++id, '=,=,='),
          modifyDnRequest(++id, userDn(10), 'uid=a,ou=b', true),
          modifyDnRequest(++id, userDn(10), '', true),
          modifyDnRequest(++id, '', 'uid=x', true),
          modifyDnRequest(++id, userDn(10), 'uid=y', true, ''),
        ];
        for (const frame of odd) connection.write(frame);
        const answers = await Promise.all(odd.map((_frame, i) => answer(connection, i + 2)));
        const codes = answers.map((response, i) => {
          assert.ok(response, `request ${i + 2} is answered`);
          assert.notEqual(response.code, 80, `request ${i + 2}: ${response.message}`);
          return response.code;
        });
        assert.deepEqual(codes.slice(0, 3), [2, 17, 17]);
        assert.equal(codes[7], 19, 'an empty password is refused');
        assert.equal(codes[9], 34, 'a malformed DN is invalidDnSyntax');
        assert.equal(codes[10], 2, 'an add with no attributes is a protocolError ("no attributes provided", as OpenLDAP)');
      } finally {
        connection.destroy();
      }
      const failures = server.logs().filter((line) => line.includes('operation failed'));
      assert.deepEqual(failures, []);
      const whoami = await tool('ldapwhoami', []);
      assert.equal(whoami.code, 0, whoami.stderr);
    });
  });
});
