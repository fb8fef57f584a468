/** The slapd harness (src/harness/slapd.ts, shared with bench-schemes) and ldapwhoami for tests. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireProgram } from '../../src/harness/slapd.js';
import { run, type RunResult } from '../../src/harness/run.js';

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
