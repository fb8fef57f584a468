#!/usr/bin/env node
// `npm start`: build if needed, load a demo directory into an empty data/db (10,000 users,
// password "password", hashed with the default scheme), print how to connect, then run
// `leveldap serve` on 127.0.0.1:1389. `leveldap serve` itself never invents data.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'leveldap.js');
const data = join(root, 'data', 'db');
const passwordFile = join(root, 'data', 'admin-password');
const USERS = 10_000;
const PORT = 1389;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) run('npm', ['run', 'build']);

mkdirSync(join(root, 'data'), { recursive: true });
if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(12).toString('base64url'), { mode: 0o600 });

if (!existsSync(data)) {
  console.log(`Loading a demo directory of ${USERS} users into data/db (once)...`);
  const make = spawnSync(process.execPath, [bin, 'make-ldif', '--users', String(USERS)], { cwd: root, maxBuffer: 1 << 30 });
  if (make.status !== 0) process.exit(make.status ?? 1);
  run(process.execPath, [bin, 'import-ldif', '-', '--data', data], { input: make.stdout, stdio: ['pipe', 'inherit', 'inherit'] });
}

const admin = readFileSync(passwordFile, 'utf8');
console.log(`
leveldap on ldap://127.0.0.1:${PORT}  (data: data/db)
  admin:  cn=Directory Manager  password: ${admin}   (kept in data/admin-password)
  users:  uid=user.0 .. uid=user.${USERS - 1},ou=People,dc=example,dc=com  password: password

Try:
  ldapsearch -x -H ldap://127.0.0.1:${PORT} -b dc=example,dc=com '(uid=user.42)'
  ldapwhoami -x -H ldap://127.0.0.1:${PORT} -D uid=user.42,ou=People,dc=example,dc=com -w password
  ldapsearch -x -H ldap://127.0.0.1:${PORT} -D 'cn=Directory Manager' -y data/admin-password -b dc=example,dc=com '(uid=user.42)' userPassword
  npx authrate -h 127.0.0.1 -p ${PORT} -D 'uid=user.%d,ou=People,dc=example,dc=com' -w password -c 32 -f -g 'rand(0,${USERS})'
`);

const server = spawn(process.execPath, [bin, 'serve', '--data', data, '--port', String(PORT), '--admin-password-file', passwordFile],
  { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
