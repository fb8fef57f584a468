/** The slapd harness (src/harness/slapd.ts, shared with bench-schemes) for tests: a slapd loaded with users, and ldapwhoami. */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSlapd, requireProgram, type Slapd } from '../../src/harness/slapd.js';
import { run, type RunResult } from '../../src/harness/run.js';
import { leveldapBin } from './paths.js';

/** A slapd loaded with `make-ldif --users N` (SSHA512, password "password") by slapadd, and started. */
export async function startSlapdWithUsers(users: number): Promise<Slapd> {
  const slapd = await createSlapd();
  const ldif = execFileSync(process.execPath, [leveldapBin, 'make-ldif', '--users', String(users), '--scheme', 'SSHA512'], { encoding: 'utf8' });
  await slapd.slapadd(ldif);
  await slapd.start();
  return slapd;
}

/**
 * `ldapwhoami -x -H url -D dn -y file`, the password in a 0600 file so that it never shows on
 * a command line. Written without a trailing newline: -y reads the whole file as the password.
 */
export async function ldapwhoami(url: string, dn: string, password: string | Uint8Array): Promise<RunResult> {
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-bind-'));
  try {
    const file = join(dir, 'password');
    await writeFile(file, password, { mode: 0o600 });
    return await run(requireProgram('ldapwhoami'), ['-x', '-H', url, '-D', dn, '-y', file]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
