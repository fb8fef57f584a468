/**
 * Writes are checked against the schema as OpenLDAP checks them: the same entries and changes,
 * sent with ldapadd and ldapmodify to a real slapd (core, cosine, inetorgperson, nis) and to
 * leveldap, get the same result code and the same message. Both are written by their admin, so
 * access control plays no part.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSlapd, slapdAvailable, type Slapd } from '../../src/harness/slapd.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, type Credentials } from '../helpers/ldap-client.js';

const PEOPLE = 'ou=People,dc=example,dc=com';
const SKIP = slapdAvailable() ? false : 'slapd is not installed: apt-get install slapd ldap-utils';

/** New entries (the attributes of cn=a,ou=People): each a rule of the schema broken, or kept. */
const ADDS: Readonly<Record<string, string>> = {
  'no objectClass': 'cn: a\nsn: a',
  'an unknown object class': 'objectClass: fooBar\ncn: a\nsn: a',
  'no structural class': 'objectClass: top\nobjectClass: dcObject\ncn: a\ndc: a',
  'two structural chains': 'objectClass: person\nobjectClass: organizationalUnit\ncn: a\nsn: a\nou: a',
  'a MUST missing': 'objectClass: person\ncn: a',
  'an attribute no class allows': 'objectClass: person\ncn: a\nsn: a\nmail: a@example.com',
  'an unknown attribute type': 'objectClass: person\ncn: a\nsn: a\nfooAttr: 1',
  'two values of a SINGLE-VALUE type': 'objectClass: inetOrgPerson\ncn: a\nsn: a\ndisplayName: one\ndisplayName: two',
  'an Integer that is not one': 'objectClass: inetOrgPerson\nobjectClass: posixAccount\ncn: a\nsn: a\nuid: a\nuidNumber: x12\ngidNumber: 1\nhomeDirectory: /h',
  'a DN that is not one': 'objectClass: inetOrgPerson\ncn: a\nsn: a\nmanager: not a dn',
  'an IA5String with non-ASCII': 'objectClass: inetOrgPerson\ncn: a\nsn: a\nmail: pässwörd@example.com',
  'an empty Directory String': 'objectClass: person\ncn: a\nsn: a\ndescription:',
  'a telephone number with é': 'objectClass: person\ncn: a\nsn: a\ntelephoneNumber: +1 555 é',
  'an abstract class alone': 'objectClass: top\ncn: a',
  'extensibleObject allows any user attribute': 'objectClass: person\nobjectClass: extensibleObject\ncn: a\nsn: a\nmail: a@example.com\nuidNumber: 5',
  'an auxiliary class and its attributes': 'objectClass: inetOrgPerson\nobjectClass: posixAccount\ncn: a\nsn: a\nuid: a\nuidNumber: 12\ngidNumber: 1\nhomeDirectory: /h',
  'a server-kept attribute': 'objectClass: person\ncn: a\nsn: a\nentryUUID: 3b241101-e2bb-4255-8caf-4136c566a962',
};

/** Changes to uid=x,ou=People (an inetOrgPerson). */
const MODIFIES: Readonly<Record<string, string>> = {
  'the structural class changed': 'replace: objectClass\nobjectClass: account',
  'a MUST removed': 'delete: sn',
  'a second value of a SINGLE-VALUE type': 'add: displayName\ndisplayName: a\ndisplayName: b',
  'an unknown attribute type': 'add: fooAttr\nfooAttr: 1',
  'an attribute no class allows': 'add: uidNumber\nuidNumber: 5',
  'an auxiliary class added with its attributes': 'add: objectClass\nobjectClass: posixAccount\n-\nadd: uidNumber\nuidNumber: 5\n-\nadd: gidNumber\ngidNumber: 5\n-\nadd: homeDirectory\nhomeDirectory: /h',
  'structuralObjectClass written': 'replace: structuralObjectClass\nstructuralObjectClass: person',
};

const BASE_LDIF = `dn: uid=x,${PEOPLE}\nobjectClass: inetOrgPerson\nuid: x\ncn: x\nsn: x\n`;

interface Outcome {
  readonly code: number;
  readonly message: string;
}

/** The LDAP result code of an OpenLDAP tool's failure (its exit status is the code) and the additional info. */
function outcome(result: { code: number; stderr: string }): Outcome {
  return { code: result.code, message: /additional info: (.*)/.exec(result.stderr)?.[1]?.trim() ?? '' };
}

interface Target {
  readonly url: string;
  readonly admin: Credentials;
}

async function add(target: Target, body: string): Promise<Outcome> {
  const result = outcome(await ldapTool('ldapadd', target.url, [], target.admin, `dn: cn=a,${PEOPLE}\n${body}\n`));
  if (result.code === 0) await ldapTool('ldapdelete', target.url, [`cn=a,${PEOPLE}`], target.admin);
  return result;
}

async function modify(target: Target, body: string): Promise<Outcome> {
  return outcome(await ldapTool('ldapmodify', target.url, [], target.admin, `dn: uid=x,${PEOPLE}\nchangetype: modify\n${body}\n`));
}

describe('schema checks on writes: leveldap answers as slapd does', { skip: SKIP }, () => {
  let slapd: Slapd;
  let leveldap: LeveldapServer;
  let theirs: Target;
  let ours: Target;

  before(async () => {
    slapd = await createSlapd({ schemas: ['core', 'cosine', 'inetorgperson', 'nis'] });
    await slapd.slapadd(`dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n\ndn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: People\n\n${BASE_LDIF}`);
    await slapd.start();
    leveldap = await startLeveldap({ users: 0, ldif: BASE_LDIF });
    theirs = { url: slapd.url, admin: { dn: slapd.rootDn, password: slapd.rootPassword } };
    ours = { url: leveldap.url, admin: { dn: leveldap.adminDn, passwordFile: leveldap.adminPasswordFile } };
  });
  after(async () => {
    await slapd?.stop();
    await leveldap?.stop();
  });

  for (const [name, body] of Object.entries(ADDS)) {
    test(`add: ${name}`, async () => {
      const expected = await add(theirs, body);
      assert.deepEqual(await add(ours, body), expected);
    });
  }

  for (const [name, body] of Object.entries(MODIFIES)) {
    test(`modify: ${name}`, async () => {
      const expected = await modify(theirs, body);
      assert.deepEqual(await modify(ours, body), expected);
    });
  }
});
