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
};

export const SLAPPASSWD_PASSWORDS: readonly string[] = [
  'secret',
  'pässwörd-密码-🔑',
  'abcdefghijklmnop'.repeat(64),
];

export interface SlappasswdHash {
  readonly scheme: string;
  readonly password: string;
  readonly stored: string;
}

/** Runs slappasswd with the password in a 0600 file (-T), so it is never on a command line. */
export async function slappasswd(scheme: string, password: string): Promise<string> {
  if (!SLAPPASSWD) throw new Error('slappasswd is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-slappasswd-'));
  try {
    const file = join(dir, 'password');
    await writeFile(file, password, { mode: 0o600 });
    const module = SLAPPASSWD_SCHEMES[scheme];
    const moduleArgs = module ? ['-o', `module-path=${MODULE_PATH}`, '-o', `module-load=${module}`] : [];
    const result = await run(SLAPPASSWD, [...moduleArgs, '-h', `{${scheme}}`, '-T', file]);
    if (result.code !== 0) throw new Error(`slappasswd -h {${scheme}} failed: ${result.stderr.trim()}`);
    return result.stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function slappasswdHashes(): Promise<SlappasswdHash[]> {
  const hashes: SlappasswdHash[] = [];
  for (const scheme of Object.keys(SLAPPASSWD_SCHEMES)) {
    for (const password of SLAPPASSWD_PASSWORDS) {
      hashes.push({ scheme, password, stored: await slappasswd(scheme, password) });
    }
  }
  return hashes;
}
