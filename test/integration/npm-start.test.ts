/**
 * `npm start` (scripts/start.js) as an operator runs it: it loads a demo directory once (users
 * and groups) and starts serve, with the admin password from LEVELDAP_ADMIN_PASSWORD when that
 * is set (serve documents the variable), else from the generated data/admin-password file. Run
 * here with `--data` in a temporary directory, `--port 0` and a small `--users`.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { onExit } from '../../src/harness/exit-cleanup.js';
import { ldapTool, parseLdifOutput, valuesOf } from '../helpers/ldap-client.js';

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  readonly output: () => string;
}

/** Runs scripts/start.js until serve logs that it listens; resolves with its port. */
function npmStart(data: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'start.js'), '--data', data, '--port', '0', '--users', '20'],
    { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  onExit(() => child.kill('SIGKILL'));
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen within 30 s:\n${text}`)), 30_000);
    const take = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.split('\n').find((candidate) => candidate.includes('"leveldap is listening"'));
      if (!line) return;
      clearTimeout(timer);
      resolve({ child, port: (JSON.parse(line) as { port: number }).port, output: () => text });
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${text}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const ADMIN = 'cn=Directory Manager';

describe('npm start', () => {
  const dirs: string[] = [];
  after(async () => { await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))); });
  const newDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leveldap-start-'));
    dirs.push(dir);
    return dir;
  };

  test('LEVELDAP_ADMIN_PASSWORD, when set, is the admin password (and it says so)', async () => {
    const dir = await newDir();
    const password = 'from-the-environment-42';
    const started = await npmStart(join(dir, 'db'), { ...process.env, LEVELDAP_ADMIN_PASSWORD: password });
    try {
      const url = `ldap://127.0.0.1:${started.port}`;
      const who = await ldapTool('ldapwhoami', url, [], { dn: ADMIN, password });
      assert.equal(who.code, 0, who.stderr);
      assert.match(who.stdout, /dn:cn=Directory Manager/);
      assert.match(started.output(), /LEVELDAP_ADMIN_PASSWORD/);
      assert.equal(existsSync(join(dir, 'admin-password')), false, 'no password file is written when the variable is set');
    } finally {
      await stop(started.child);
    }
  });

  test('without the variable, the generated data/admin-password file is the admin password', async () => {
    const dir = await newDir();
    const env = { ...process.env };
    delete env.LEVELDAP_ADMIN_PASSWORD;
    const started = await npmStart(join(dir, 'db'), env);
    try {
      const password = readFileSync(join(dir, 'admin-password'), 'utf8');
      assert.match(started.output(), new RegExp(`password: ${password}`));
      const who = await ldapTool('ldapwhoami', `ldap://127.0.0.1:${started.port}`, [], { dn: ADMIN, password });
      assert.equal(who.code, 0, who.stderr);
      const user = await ldapTool('ldapwhoami', `ldap://127.0.0.1:${started.port}`, [], { dn: 'uid=user.7,ou=People,dc=example,dc=com', password: 'password' });
      assert.equal(user.code, 0, user.stderr);
      assert.match(started.output(), /20 users and 20 groups/);
      const group = 'cn=group.0,ou=Groups,dc=example,dc=com';
      const members = await ldapTool('ldapsearch', `ldap://127.0.0.1:${started.port}`, ['-LLL', '-b', 'ou=People,dc=example,dc=com', `(memberOf=${group})`, 'memberOf']);
      assert.equal(members.code, 0, members.stderr);
      const found = parseLdifOutput(members.stdout);
      assert.ok(found.length > 0, 'the demo has groups, and memberOf finds their members');
      for (const entry of found) assert.ok(valuesOf(entry, 'memberOf').includes(group), entry.dn);
    } finally {
      await stop(started.child);
    }
  });
});
