/** Hashes made by OpenLDAP's own slappasswd, to prove leveldap reads what OpenLDAP writes. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/harness/run.js';
import { findProgram } from '../../src/harness/slapd.js';

export const SLAPPASSWD = findProgram('slappasswd');
const MODULE_PATH = '/usr/lib/ldap';

/** Every scheme slappasswd writes that leveldap implements, with the module that provides it. */
export const SLAPPASSWD_SCHEMES: Readonly<Record<string, string | undefined>> = {
  SHA: undefined, SSHA: undefined, MD5: undefined, SMD5: undefined, CLEARTEXT: undefined,
  SHA256: 'pw-sha2.so', SSHA256: 'pw-sha2.so', SHA384: 'pw-sha2.so', SSHA384: 'pw-sha2.so',
  SHA512: 'pw-sha2.so', SSHA512: 'pw-sha2.so',
  PBKDF2: 'pw-pbkdf2.so', 'PBKDF2-SHA1': 'pw-pbkdf2.so', 'PBKDF2-SHA256': 'pw-pbkdf2.so', 'PBKDF2-SHA512': 'pw-pbkdf2.so',
  ARGON2: 'argon2.so', 'ARGON2 m=1024,t=2,p=2': 'argon2.so m=1024 t=2 p=2',
  // {CRYPT} with a crypt(3) salt format (slappasswd -c), one per method libxcrypt writes
  'CRYPT $y$': '$y$j9T$%.16s', 'CRYPT $6$': '$6$%.16s', 'CRYPT $6$rounds=': '$6$rounds=10000$%.16s', 'CRYPT $5$': '$5$%.16s',
  'CRYPT $2b$': '$2b$10$%.22s', 'CRYPT $1$': '$1$%.8s', 'CRYPT DES': '%.2s',
};

/** The scheme a SLAPPASSWD_SCHEMES label writes ("CRYPT $6$" writes {CRYPT}). */
export const schemeOfLabel = (label: string): string => label.split(' ')[0]!;

/** How many leading bytes of a password the label's method reads (bcrypt 72, DES 8), when it truncates. */
export function truncatesAt(label: string): number | undefined {
  return label === 'CRYPT $2b$' ? 72 : label === 'CRYPT DES' ? 8 : undefined;
}

export const SLAPPASSWD_PASSWORDS: readonly string[] = [
  'secret',
  'pässwörd-密码-🔑',
  'abcdefghijklmnop'.repeat(64),
];

/** crypt(3) (libxcrypt) hashes passwords of at most 511 bytes: the long one for {CRYPT} is 256 (past bcrypt's 72 and DES's 8). */
export function passwordsFor(label: string): readonly string[] {
  return schemeOfLabel(label) === 'CRYPT' ? SLAPPASSWD_PASSWORDS.map((password) => password.slice(0, 256)) : SLAPPASSWD_PASSWORDS;
}

export interface SlappasswdHash {
  readonly scheme: string;
  readonly password: string;
  readonly stored: string;
}

/** The slappasswd arguments of a label: a module to load (with its arguments), or a crypt(3) salt format. */
function argumentsOf(label: string): string[] {
  const extra = SLAPPASSWD_SCHEMES[label];
  if (extra === undefined) return [];
  if (schemeOfLabel(label) === 'CRYPT') return ['-c', extra];
  return ['-o', `module-path=${MODULE_PATH}`, '-o', `module-load=${extra}`];
}

/** Runs slappasswd with the password in a 0600 file (-T), so it is never on a command line; `label` is a key of SLAPPASSWD_SCHEMES. */
export async function slappasswd(label: string, password: string): Promise<string> {
  if (!SLAPPASSWD) throw new Error('slappasswd is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-slappasswd-'));
  try {
    const file = join(dir, 'password');
    await writeFile(file, password, { mode: 0o600 });
    // -h before -c: slappasswd refuses a -h after -c (which chose {CRYPT} already)
    const result = await run(SLAPPASSWD, ['-h', `{${schemeOfLabel(label)}}`, ...argumentsOf(label), '-T', file]);
    if (result.code !== 0) throw new Error(`slappasswd ${label} failed: ${result.stderr.trim()}`);
    return result.stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function slappasswdHashes(): Promise<SlappasswdHash[]> {
  const hashes: SlappasswdHash[] = [];
  for (const scheme of Object.keys(SLAPPASSWD_SCHEMES)) {
    for (const password of passwordsFor(scheme)) {
      hashes.push({ scheme, password, stored: await slappasswd(scheme, password) });
    }
  }
  return hashes;
}
