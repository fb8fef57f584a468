/**
 * Interoperability: every value leveldap writes in a scheme OpenLDAP knows (with pw-sha2,
 * pw-pbkdf2 and argon2 loaded; {CRYPT} through the system's crypt(3)) is loaded into a real
 * slapd with slapadd, and a simple bind must succeed with the password and fail with invalid
 * credentials (49) without it.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry, parseStoredValue } from '../../src/password/index.js';
import type { SchemeParams } from '../../schemes/scheme.js';
import { ldapwhoami } from '../helpers/slapd.js';
import { createSlapd, slapdAvailable, type Slapd } from '../../src/harness/slapd.js';

/** A scheme leveldap writes, with the parameters it writes with here (a label for the test name). */
interface Written {
  readonly scheme: string;
  readonly params?: SchemeParams;
  readonly label?: string;
}

const SCHEMES: readonly Written[] = [
  ...['SHA', 'SSHA', 'SHA256', 'SSHA256', 'SHA384', 'SSHA384', 'SHA512', 'SSHA512', 'MD5', 'SMD5',
    'PBKDF2', 'PBKDF2-SHA1', 'PBKDF2-SHA256', 'PBKDF2-SHA512', 'CLEAR'].map((scheme) => ({ scheme })),
  { scheme: 'ARGON2', label: 'ARGON2 argon2id (OWASP)' },
  { scheme: 'ARGON2', params: { memory: 65_536, time: 3, parallelism: 4 }, label: 'ARGON2 argon2id m=65536,t=3,p=4' },
  { scheme: 'CRYPT', label: 'CRYPT yescrypt' },
  { scheme: 'CRYPT', params: { rounds: 656_000 }, label: 'CRYPT SHA-512-crypt, 656,000 rounds' },
];

/** crypt(3) takes at most 511 bytes: the long password for {CRYPT} is cut to 256. */
const passwordFor = (scheme: string, password: string): string => (scheme === 'CRYPT' ? password.slice(0, 256) : password);

const PASSWORDS: Readonly<Record<string, string>> = {
  ascii: 'correct horse battery staple',
  unicode: 'pässwörd-密码-🔑',
  '1 KiB': '0123456789abcdef'.repeat(64),
};

const BASE_DN = 'dc=example,dc=com';
const PEOPLE_DN = `ou=People,${BASE_DN}`;
const INVALID_CREDENTIALS = 49;
const SKIP = slapdAvailable() ? false : 'slapd is not installed: apt-get install slapd ldap-utils slapd-contrib';

interface Case {
  readonly scheme: string;
  readonly params?: SchemeParams;
  readonly name: string;
  readonly label: string;
  readonly password: string;
  readonly dn: string;
}

const cases: readonly Case[] = SCHEMES.flatMap(({ scheme, params, label: name = `{${scheme}}` }) =>
  Object.entries(PASSWORDS).map(([label, password]) => ({
    scheme, name, label, password: passwordFor(scheme, password), dn: userDn(`${name}-${label}`), ...(params && { params }),
  })),
);

/** Written by leveldap as `{CLEAR}...`, which slapd refuses (see the last test). */
const clearPrefixed: Case = { scheme: 'CLEAR', name: '{CLEAR}', label: 'ascii', password: PASSWORDS['ascii']!, dn: userDn('clear-prefixed') };

function userDn(name: string): string {
  return `uid=${name.toLowerCase().replace(/[^a-z0-9-]+/g, '-')},${PEOPLE_DN}`;
}

/** The password with its last character changed, so a server that truncates would be caught. */
function wrongPassword(password: string): string {
  const chars = [...password];
  return `${chars.slice(0, -1).join('')}${chars.at(-1) === '!' ? '?' : '!'}`;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

async function encode(scheme: string, password: string, params: SchemeParams = {}): Promise<string> {
  return createRegistry().encode(scheme, Buffer.from(password, 'utf8'), params);
}

/**
 * OpenLDAP has no {CLEAR}, and its {CLEARTEXT} can only write (slappasswd -h {CLEARTEXT}
 * prints the bare password): cleartext is stored with no prefix at all. So the CLEAR cases
 * store leveldap's value with its prefix removed.
 */
async function storedValue({ scheme, password, params }: Case): Promise<string> {
  const encoded = await encode(scheme, password, params);
  return scheme === 'CLEAR' ? parseStoredValue(encoded).value : encoded;
}

function userLdif(dn: string, stored: string): string {
  const uid = /^uid=([^,]+),/.exec(dn)![1]!;
  return `dn: ${dn}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: ${uid}\nuserPassword:: ${base64(stored)}\n`;
}

async function buildLdif(): Promise<string> {
  const users = await Promise.all(cases.map(async (c) => userLdif(c.dn, await storedValue(c))));
  const prefixed = userLdif(clearPrefixed.dn, await encode('CLEAR', clearPrefixed.password));
  return [
    `dn: ${BASE_DN}\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n`,
    `dn: ${PEOPLE_DN}\nobjectClass: organizationalUnit\nou: People\n`,
    ...users,
    prefixed,
  ].join('\n');
}

async function assertBind(server: Slapd, dn: string, password: string, expected: number): Promise<void> {
  const result = await ldapwhoami(server.url, dn, password);
  assert.equal(result.code, expected, `ldapwhoami as ${dn}: ${result.stderr.trim() || result.stdout.trim()}`);
}

describe('OpenLDAP slapd verifies passwords written by leveldap', { skip: SKIP, concurrency: 4 }, () => {
  let server: Slapd | undefined;

  before(async () => {
    server = await createSlapd({ modules: ['pw-sha2.so', 'pw-pbkdf2.so', 'argon2.so'] });
    await server.slapadd(await buildLdif());
    await server.start();
  });

  after(async () => {
    await server?.stop();
  });

  for (const c of cases) {
    test(`slapd verifies ${c.name} written by leveldap (${c.label} password)`, async () => {
      await assertBind(server!, c.dn, c.password, 0);
      await assertBind(server!, c.dn, wrongPassword(c.password), INVALID_CREDENTIALS);
    });
  }

  test('slapd refuses a {CLEAR}-prefixed value: OpenLDAP stores cleartext without a prefix', async () => {
    await assertBind(server!, clearPrefixed.dn, clearPrefixed.password, INVALID_CREDENTIALS);
  });
});
