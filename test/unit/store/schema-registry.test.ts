/**
 * The schema parser and registry: OpenLDAP's file syntaxes (a site's own files load as they
 * are), errors that name the file and line, SUP inheritance, and the built-in registry the
 * store's type lookups read.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseSchemaFile, SchemaSyntaxError } from '../../../src/store/schema/parse.js';
import { SchemaError, SchemaRegistry } from '../../../src/store/schema/registry.js';
import { buildSchema } from '../../../src/store/schema/installed.js';
import { formatAttributeType, formatObjectClass } from '../../../src/store/schema/format.js';
import { attributeType, namesOf } from '../../../src/store/schema.js';
import { builtinSchemaFiles } from '../../../src/store/schema/builtin/index.js';

const SITE = `
# a site's schema, in OpenLDAP's syntax
objectidentifier ExampleRoot 1.3.6.1.4.1.99999
objectidentifier ExampleAttr ExampleRoot:1
attributetype ( ExampleAttr:1 NAME ( 'badgeNumber' 'badge' )
\tDESC 'the number on a badge'
\tEQUALITY integerMatch ORDERING integerOrderingMatch
\tSYNTAX '1.3.6.1.4.1.1466.115.121.1.27' SINGLE-VALUE X-ORIGIN 'site' )
attributetype ( ExampleAttr:2 NAME 'badgeHolder' SUP name )
objectclass ( ExampleRoot:2.1 NAME 'badged' SUP top AUXILIARY MUST badgeNumber MAY badgeHolder )
`;

const OLC = `dn: cn={4}site,cn=schema,cn=config
objectClass: olcSchemaConfig
cn: {4}site
olcAttributeTypes: {0}( 1.3.6.1.4.1.99999.1.1 NAME 'badgeNumber' EQUALITY integ
 erMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
olcObjectClasses:: ezB9KCAxLjMuNi4xLjQuMS45OTk5OS4yLjEgTkFNRSAnYmFkZ2VkJyBTVVAgdG9wIEFVWElMSUFSWSBNVVNUIGJhZGdlTnVtYmVyICk=
`;

describe('schema files', () => {
  test('OpenLDAP .schema syntax: macros, quoted OIDs, continuation lines, X- extensions', () => {
    const { attributeTypes, objectClasses } = parseSchemaFile(SITE, 'site.schema');
    assert.equal(attributeTypes[0]!.oid, '1.3.6.1.4.1.99999.1.1');
    assert.deepEqual(attributeTypes[0]!.names, ['badgeNumber', 'badge']);
    assert.equal(attributeTypes[0]!.syntax, '1.3.6.1.4.1.1466.115.121.1.27');
    assert.equal(attributeTypes[0]!.singleValue, true);
    assert.deepEqual(attributeTypes[0]!.extensions, { 'X-ORIGIN': ['site'] });
    assert.equal(attributeTypes[0]!.source, 'site.schema line 5');
    assert.equal(objectClasses[0]!.oid, '1.3.6.1.4.1.99999.2.1');
    assert.equal(objectClasses[0]!.kind, 'AUXILIARY');
  });

  test('the LDIF form: {n} prefixes, folded lines, base64 values', () => {
    const { attributeTypes, objectClasses } = parseSchemaFile(OLC, 'site.ldif');
    assert.equal(attributeTypes[0]!.equality, 'integerMatch');
    assert.deepEqual(objectClasses[0]!.must, ['badgeNumber']);
  });

  test("every file of the system's OpenLDAP schema folder parses, but for dsee.schema's typo, refused with its line", { skip: existsSync('/etc/ldap/schema') ? false : 'no /etc/ldap/schema' }, () => {
    for (const file of readdirSync('/etc/ldap/schema').filter((name) => /\.(schema|ldif)$/.test(name))) {
      const parse = () => parseSchemaFile(readFileSync(`/etc/ldap/schema/${file}`, 'utf8'), file);
      if (file === 'dsee.schema') assert.throws(parse, (error: unknown) => error instanceof SchemaSyntaxError && error.line === 96 && /attributeype/.test(error.message));
      else assert.doesNotThrow(parse, file);
    }
  });

  test('a malformed definition is refused with the file, the line and the reason', () => {
    const refused = (text: string, pattern: RegExp) =>
      assert.throws(() => parseSchemaFile(text, 'bad.schema'), (error: unknown) => error instanceof SchemaSyntaxError && pattern.test(error.message));
    refused("\n\nattributetype ( 1.2.3 NAME 'x' SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 FOO )", /^bad\.schema line 3: unknown keyword FOO$/);
    refused("attributetype ( 1.2.3 NAME 'x' )", /needs SUP or SYNTAX/);
    refused("attributetype ( 1.2.3 NAME 'x' SYNTAX 1.3.6.1.4.1.1466.115.121.1.15", /ends too early/);
    refused("objectclass ( 1.2.4 NAME 'y' MUST ( a b ) )", /expected "\$" or "\)"/);
    refused('attribute ( 1.2.3 )', /unknown statement "attribute"/);
  });
});

describe('the registry', () => {
  test('a site schema on top of the built-in one: inheritance from SUP, MUST and MAY resolved', () => {
    const registry = SchemaRegistry.build([...builtinFiles(), parseSchemaFile(SITE, 'site.schema')]);
    const holder = registry.attributeType('badgeHolder')!;
    assert.equal(holder.equality?.name, 'caseIgnoreMatch', 'from name, its SUP');
    assert.equal(holder.syntax.description, 'Directory String');
    assert.equal(registry.attributeType('BADGE'), registry.attributeType('1.3.6.1.4.1.99999.1.1'));
    assert.deepEqual([...registry.objectClass('badged')!.must], ['objectclass', 'badgenumber']);
    assert.ok(registry.objectClass('inetOrgPerson')!.must.has('sn'), "person's MUST, inherited");
  });

  test('refusals name the definition: a name twice, an unknown SUP, rule, syntax or type', () => {
    const refused = (text: string, pattern: RegExp) => assert.throws(
      () => SchemaRegistry.build([...builtinFiles(), parseSchemaFile(text, 'site.schema')]),
      (error: unknown) => error instanceof SchemaError && pattern.test(error.message),
    );
    refused("attributetype ( 1.2.3.4 NAME 'cn' SUP name )", /^site\.schema line 1: attribute type cn is already defined \(core/);
    refused("attributetype ( 1.2.3.4 NAME 'x' SUP nothing )", /unknown SUP nothing/);
    refused("attributetype ( 1.2.3.4 NAME 'x' EQUALITY caseIgnoreMacth SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )", /unknown matching rule caseIgnoreMacth/);
    refused("attributetype ( 1.2.3.4 NAME 'x' SYNTAX 1.2.3.999 )", /unknown syntax 1\.2\.3\.999/);
    refused("objectclass ( 1.2.3.5 NAME 'y' SUP top AUXILIARY MAY nothing )", /MAY names an unknown attribute type nothing/);
  });

  test('descriptions are written back in RFC 4512 form, and read again the same', () => {
    const registry = buildSchema();
    for (const type of registry.attributeTypes) {
      const again = parseSchemaFile(`attributetype ${formatAttributeType(type.description)}`, 'again').attributeTypes[0]!;
      assert.deepEqual({ ...again, source: '' }, { ...type.description, source: '' }, type.name);
    }
    for (const objectClass of registry.objectClasses) {
      const again = parseSchemaFile(`objectclass ${formatObjectClass(objectClass.description)}`, 'again').objectClasses[0]!;
      assert.deepEqual({ ...again, source: '' }, { ...objectClass.description, source: '' }, objectClass.name);
    }
  });

  test('the store reads its types from the registry: names, aliases and OIDs; equality; operational; unknown types', () => {
    assert.equal(attributeType('commonName').key, 'cn');
    assert.equal(attributeType('2.5.4.3;lang-en').key, 'cn');
    assert.equal(attributeType('member').equality, 'dn');
    assert.equal(attributeType('mail').equality, 'caseIgnore');
    assert.equal(attributeType('uidNumber').equality, 'integer');
    assert.equal(attributeType('modifyTimestamp').operational, true);
    assert.equal(attributeType('pwdFailureTime').adminWritable, true);
    assert.deepEqual(attributeType('notInAnySchema'), { name: 'notInAnySchema', key: 'notinanyschema', equality: 'caseIgnore', operational: false });
    assert.deepEqual(namesOf('uid'), ['uid', 'userid', '0.9.2342.19200300.100.1.1', 'oid.0.9.2342.19200300.100.1.1']);
  });
});

/** The built-in schemas' definitions, as buildSchema reads them. */
function builtinFiles() {
  return builtinSchemaFiles().map((file) => parseSchemaFile(file.text, file.name));
}
