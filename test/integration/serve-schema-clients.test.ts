/**
 * The schema as the clients that read it see it: Python's ldap3 (Server(get_info=ALL).schema,
 * ObjectDef, Reader, Writer, timestamps as datetimes) and python-ldap (ldap.schema.urlfetch and
 * SubSchema), from Debian's python3-ldap3 and python3-ldap, against a real server; and what
 * ldapsearch finds at cn=Subschema and in the root DSE.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { run } from '../../src/harness/run.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf } from '../helpers/ldap-client.js';
import { fixturePath } from '../helpers/paths.js';

/** Debian's interpreter, where python3-ldap3 and python3-ldap install. */
const PYTHON = '/usr/bin/python3';
const USER = 'uid=user.1,ou=People,dc=example,dc=com';

async function pythonHas(modules: string): Promise<boolean> {
  return existsSync(PYTHON) && (await run(PYTHON, ['-c', `import ${modules}`])).code === 0;
}

describe('leveldap serve: the schema through ldapsearch', () => {
  let server: LeveldapServer;
  before(async () => { server = await startLeveldap({ users: 3 }); });
  after(async () => { await server.stop(); });

  const search = async (base: string, ...args: string[]) => {
    const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', base, '-s', 'base', '(objectClass=*)', ...args]);
    assert.equal(result.code, 0, result.stderr);
    return parseLdifOutput(result.stdout)[0]!;
  };

  test('the root DSE and every entry name cn=Subschema (operational: by name or +)', async () => {
    assert.deepEqual(valuesOf(await search('', 'subschemaSubentry'), 'subschemaSubentry'), ['cn=Subschema']);
    assert.deepEqual(valuesOf(await search(USER, '+'), 'subschemaSubentry'), ['cn=Subschema']);
    assert.deepEqual(valuesOf(await search(USER), 'subschemaSubentry'), [], 'not a user attribute');
  });

  test('cn=Subschema: objectClass and cn plainly; the definitions, syntaxes, rules and timestamps with +', async () => {
    const plain = await search('cn=Subschema');
    assert.deepEqual(valuesOf(plain, 'cn'), ['Subschema']);
    assert.deepEqual(valuesOf(plain, 'attributeTypes'), []);
    const all = await search('cn=Subschema', '+');
    for (const name of ['attributeTypes', 'objectClasses', 'ldapSyntaxes', 'matchingRules', 'matchingRuleUse', 'createTimestamp', 'modifyTimestamp']) {
      assert.ok(valuesOf(all, name).length > 0, name);
    }
    assert.ok(valuesOf(all, 'attributeTypes').some((value) => value.startsWith("( 2.5.4.3 NAME ( 'cn' 'commonName' ) SUP name")));
    assert.ok(valuesOf(all, 'objectClasses').some((value) => value.includes("NAME 'inetOrgPerson'") && value.includes('SUP organizationalPerson STRUCTURAL')));
  });

  test('cn=Subschema is the subschema entry for a base search only: scope one, sub or children answer noSuchObject, as in OpenLDAP', async () => {
    for (const scope of ['one', 'sub', 'children']) {
      const result = await ldapTool('ldapsearch', server.url, ['-LLL', '-b', 'cn=Subschema', '-s', scope, '(objectClass=*)', '1.1']);
      assert.equal(result.code, 32, `scope ${scope}: ${result.stdout}${result.stderr}`);
      assert.equal(parseLdifOutput(result.stdout).length, 0);
    }
  });

  test('entries keep structuralObjectClass', async () => {
    const result = await ldapTool('ldapadd', server.url, [], { dn: server.adminDn, passwordFile: server.adminPasswordFile },
      'dn: cn=new,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\ncn: new\nsn: new\n');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(valuesOf(await search('cn=new,ou=People,dc=example,dc=com', 'structuralObjectClass'), 'structuralObjectClass'), ['inetOrgPerson']);
  });
});

describe('leveldap serve: the schema through ldap3 and python-ldap', async () => {
  const skip = (await pythonHas('ldap3, ldap')) ? false : 'Debian\'s python3-ldap3 and python3-ldap are not installed (apt-get install python3-ldap3 python3-ldap)';
  let server: LeveldapServer;
  before(async () => { if (!skip) server = await startLeveldap({ users: 3, env: { LEVELDAP_ADMIN_PASSWORD: 'admin-secret' } }); });
  after(async () => { await server?.stop(); });

  test('ldap3 reads the schema and uses it; python-ldap fetches and parses the subschema', { skip }, async () => {
    const result = await run(PYTHON, [fixturePath('python/schema_clients.py'), server.url, server.adminDn, server.adminPassword, USER]);
    assert.equal(result.code, 0, result.stderr);
    const found = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.equal(found.ldap3_schema, true);
    assert.ok((found.ldap3_object_classes as number) > 30);
    assert.deepEqual(found.ldap3_person_must, ['cn', 'sn']);
    assert.deepEqual(found.ldap3_inetorgperson_sup, ['organizationalPerson']);
    assert.equal(found.objectdef_has_mail, true);
    assert.equal(found.reader_entries, 1);
    assert.equal(found.reader_uid, 'user.1');
    assert.equal(found.createtimestamp_is_datetime, true, 'GeneralizedTime by its syntax');
    assert.equal(found.structural, 'inetOrgPerson');
    assert.equal(found.writer_commit, true);
    assert.equal(found.description_after, 'set through ldap3 Writer');
    assert.equal(found.python_ldap_subschema_dn, 'cn=Subschema');
    assert.deepEqual(found.python_ldap_inetorgperson_sup, ['organizationalPerson']);
    assert.deepEqual(found.python_ldap_must, ['cn', 'objectClass', 'sn']);
    assert.equal(found.python_ldap_mail_equality, 'caseIgnoreIA5Match');
  });
});
