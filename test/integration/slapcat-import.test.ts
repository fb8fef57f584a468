/**
 * Migration from OpenLDAP: a database built with slapadd from users whose passwords were hashed
 * by slappasswd, dumped with slapcat (operational attributes, folded base64), imported with
 * `leveldap import-ldif` and dumped again with `export-ldif`. Every entry, every value (non-ASCII
 * and binary ones byte for byte, entryUUID and the other operational attributes) and every
 * password hash must come through as slapcat wrote it, and the hashes must still verify.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatLdifEntry, parseLdif, type LdifRecord } from '../../src/ldif/index.js';
import { createRegistry } from '../../src/password/index.js';
import type { Entry } from '../../src/store/index.js';
import { leveldapBin } from '../helpers/paths.js';
import { run, type RunResult } from '../../src/harness/run.js';
import { createSlapd, findProgram, slapdAvailable, type Slapd } from '../../src/harness/slapd.js';
import { SLAPPASSWD, slappasswd } from '../helpers/slappasswd.js';
import { entry, tempDir } from '../helpers/store.js';

const SLAPCAT = findProgram('slapcat');
const SKIP = slapdAvailable() && SLAPCAT && SLAPPASSWD
  ? false
  : 'slapd, slapcat or slappasswd is not installed: apt-get install slapd ldap-utils slapd-contrib';

const BASE_DN = 'dc=example,dc=com';
const PEOPLE_DN = `ou=People,${BASE_DN}`;
const USERS = 50;
/** slappasswd schemes the users' hashes are written in: core, pw-sha2, pw-pbkdf2, core. */
const SCHEMES = ['SSHA', 'SSHA512', 'PBKDF2-SHA256', 'MD5'] as const;
const OPERATIONAL = ['entryUUID', 'creatorsName', 'createTimestamp', 'entryCSN', 'modifiersName', 'modifyTimestamp', 'structuralObjectClass'];

interface User {
  readonly dn: string;
  readonly scheme: string;
  readonly password: string;
  /** What slappasswd wrote. */
  readonly stored: string;
  readonly entry: Entry;
}

const leveldap = (args: string[]): Promise<RunResult> => run(process.execPath, [leveldapBin, ...args]);

/** Non-ASCII names, long values (folded by slapcat) and a binary photo on some of the users. */
function userEntry(n: number, stored: string): Entry {
  const unicode = n % 5 === 0;
  const base = entry(`uid=user.${n},${PEOPLE_DN}`, {
    objectClass: ['top', 'person', 'organizationalPerson', 'inetOrgPerson'],
    uid: `user.${n}`,
    cn: unicode ? `Zoë Ünicode ${n}` : `User ${n}`,
    sn: unicode ? 'Ünicode-Łódź-東京' : `Number ${n}`,
    userPassword: stored,
    ...(n % 3 === 0 ? { description: `${unicode ? 'Ünïcödé ' : ''}A very long description for user ${n}, `.repeat(12).trimEnd() } : {}),
  });
  if (n % 4 !== 1) return base;
  const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x0a, 0x0d, 0x20]), randomBytes(1500)]);
  return { dn: base.dn, attributes: [...base.attributes, { name: 'jpegPhoto', values: [photo] }] };
}

/** A password per user; some non-ASCII, so the bytes hashed are UTF-8. */
const passwordOf = (n: number): string => (n % 7 === 0 ? `pässwörd-密码-${n}` : `password-${n}`);

async function makeUsers(): Promise<User[]> {
  return Promise.all(Array.from({ length: USERS }, async (_unused, n) => {
    const scheme = SCHEMES[n % SCHEMES.length]!;
    const password = passwordOf(n);
    const stored = await slappasswd(scheme, password);
    const made = userEntry(n, stored);
    return { dn: made.dn, scheme, password, stored, entry: made };
  }));
}

function slapaddInput(users: readonly User[]): string {
  const entries: Entry[] = [
    entry(BASE_DN, { objectClass: ['top', 'domain'], dc: 'example' }),
    entry(PEOPLE_DN, { objectClass: ['top', 'organizationalUnit'], ou: 'People' }),
    ...users.map((user) => user.entry),
  ];
  return entries.map((item) => formatLdifEntry(item, { base64Attributes: new Set() })).join('\n');
}

/** A record's values for an attribute (any case), in order. */
function valuesOf(record: LdifRecord | undefined, attribute: string): Buffer[] {
  assert.ok(record?.kind === 'entry', 'a content record');
  return record.attributes.filter((value) => value.name.toLowerCase() === attribute.toLowerCase()).map((value) => value.value);
}

/** Attribute names of a record, lower-cased, once each. */
function attributeNames(record: LdifRecord): string[] {
  assert.ok(record.kind === 'entry', 'a content record');
  return [...new Set(record.attributes.map((value) => value.name.toLowerCase()))];
}

const byDn = (records: readonly LdifRecord[]): Map<string, LdifRecord> => new Map(records.map((record) => [record.dn, record]));

describe('leveldap import-ldif reads what OpenLDAP slapcat writes', { skip: SKIP }, () => {
  let slapd: Slapd | undefined;
  let temp: Awaited<ReturnType<typeof tempDir>> | undefined;
  let users: User[] = [];
  let slapcatText = '';
  let imported: RunResult;
  let slapcatRecords: LdifRecord[] = [];
  let exported = new Map<string, LdifRecord>();

  before(async () => {
    temp = await tempDir('leveldap-slapcat-');
    users = await makeUsers();
    slapd = await createSlapd();
    await slapd.slapadd(slapaddInput(users));
    const dump = await run(SLAPCAT!, ['-f', slapd.configFile]);
    assert.equal(dump.code, 0, `slapcat: ${dump.stderr}`);
    slapcatText = dump.stdout;
    slapcatRecords = await parseLdif(slapcatText);

    const file = join(temp.path, 'slapcat.ldif');
    await writeFile(file, slapcatText);
    const db = join(temp.path, 'db');
    imported = await leveldap(['import-ldif', file, '--data', db]);
    const dumped = await leveldap(['export-ldif', '--data', db]);
    assert.equal(dumped.code, 0, dumped.stderr);
    exported = byDn(await parseLdif(dumped.stdout));
  });

  after(async () => {
    await slapd?.stop();
    await temp?.remove();
  });

  test('slapcat wrote operational attributes, base64 values and folded lines (the input this suite relies on)', () => {
    assert.equal(slapcatRecords.length, USERS + 2);
    for (const name of OPERATIONAL) assert.match(slapcatText, new RegExp(`^${name}: `, 'm'), name);
    assert.match(slapcatText, /^userPassword:: /m);
    assert.match(slapcatText, /^jpegPhoto:: /m);
    assert.match(slapcatText, /^cn:: /m);
    assert.match(slapcatText, /^description:: [^\n]+\n [^\n]+\n [^\n]/m, 'a folded base64 value');
    assert.match(slapcatText, /^description: [^\n]+\n [^\n]/m, 'a folded plain value');
  });

  test('every entry is imported, with the same DN', () => {
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, new RegExp(`^imported ${USERS + 2} entries in `));
    assert.equal(imported.stderr, '');
    assert.deepEqual([...exported.keys()].sort(), slapcatRecords.map((record) => record.dn).sort());
  });

  test('entryUUID and the other operational attributes are kept as slapcat wrote them', () => {
    for (const record of slapcatRecords) {
      const uuid = valuesOf(record, 'entryUUID');
      assert.equal(uuid.length, 1, record.dn);
      assert.deepEqual(valuesOf(exported.get(record.dn), 'entryUUID'), uuid, `${record.dn}: entryUUID`);
      for (const name of OPERATIONAL) {
        assert.deepEqual(valuesOf(exported.get(record.dn), name), valuesOf(record, name), `${record.dn}: ${name}`);
      }
    }
  });

  test('non-ASCII and binary values survive byte for byte, as does every other value', () => {
    const zoe = exported.get(`uid=user.0,${PEOPLE_DN}`);
    assert.deepEqual(valuesOf(zoe, 'cn').map(String), ['Zoë Ünicode 0']);
    assert.deepEqual(valuesOf(zoe, 'sn').map(String), ['Ünicode-Łódź-東京']);
    assert.ok(String(valuesOf(zoe, 'description')[0]).startsWith('Ünïcödé A very long description for user 0, '));
    for (const user of users) {
      const photo = user.entry.attributes.find((attribute) => attribute.name === 'jpegPhoto')?.values;
      if (photo) assert.deepEqual(valuesOf(exported.get(user.dn), 'jpegPhoto'), photo, `${user.dn}: jpegPhoto`);
    }
    for (const record of slapcatRecords) {
      assert.deepEqual(attributeNames(exported.get(record.dn)!).sort(), attributeNames(record).sort(), `${record.dn}: no attribute added or lost`);
      for (const name of attributeNames(record)) {
        assert.deepEqual(valuesOf(exported.get(record.dn), name), valuesOf(record, name), `${record.dn}: ${name}`);
      }
    }
  });

  test('every user\'s hash is kept as slappasswd and slapcat wrote it, and verifies with the right password only', async () => {
    const registry = createRegistry();
    const schemesSeen = new Set<string>();
    for (const user of users) {
      const stored = valuesOf(exported.get(user.dn), 'userPassword');
      assert.deepEqual(stored.map(String), [user.stored], `${user.dn}: userPassword`);
      const value = stored[0]!.toString('utf8');
      schemesSeen.add(/^\{([^}]+)\}/.exec(value)?.[1] ?? '');
      const right = await registry.verify(Buffer.from(user.password, 'utf8'), value);
      assert.equal(right.status, 'match', `${user.dn} ({${user.scheme}}): ${JSON.stringify(right)}`);
      const wrong = await registry.verify(Buffer.from(`${user.password}!`, 'utf8'), value);
      assert.equal(wrong.status, 'mismatch', `${user.dn} ({${user.scheme}}) with a wrong password`);
    }
    assert.deepEqual([...schemesSeen].sort(), [...SCHEMES].sort());
  });
});
