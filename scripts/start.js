#!/usr/bin/env node
// `npm start`: build if needed, load a demo directory into an empty data/db (10,000 users,
// password "password", hashed with the default scheme, and 20 groups of them under ou=Groups),
// print how to connect, then run `leveldap serve` on 127.0.0.1:1389. `leveldap serve` itself
// never invents data.
//
// The admin password: LEVELDAP_ADMIN_PASSWORD when it is set (serve reads it; nothing is
// written), else the one kept in data/admin-password (generated on the first start).
// `npm start -- --port N --data DIR --users N --groups N` changes where and what (the tests use them).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dirname, join, relative, resolve } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'leveldap.js');
const { values: options } = parseArgs({
  options: {
    port: { type: 'string', default: '1389' }, data: { type: 'string' }, users: { type: 'string', default: '10000' }, groups: { type: 'string', default: '20' },
  },
});
const data = resolve(root, options.data ?? join('data', 'db'));
const passwordFile = join(dirname(data), 'admin-password');
const USERS = Number(options.users);
const GROUPS = Number(options.groups);
const PORT = options.port;
const shown = (path) => relative(root, path) || path;

function run(command, args, runOptions = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...runOptions });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) run('npm', ['run', 'build']);

const fromEnvironment = (process.env.LEVELDAP_ADMIN_PASSWORD ?? '') !== '';
mkdirSync(dirname(data), { recursive: true });
if (!fromEnvironment && !existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(12).toString('base64url'), { mode: 0o600 });

if (!existsSync(data)) {
  console.log(`Loading a demo directory of ${USERS} users and ${GROUPS} groups into ${shown(data)} (once)...`);
  const make = spawnSync(process.execPath, [bin, 'make-ldif', '--users', String(USERS), '--groups', String(GROUPS)], { cwd: root, maxBuffer: 1 << 30 });
  if (make.status !== 0) process.exit(make.status ?? 1);
  run(process.execPath, [bin, 'import-ldif', '-', '--data', data], { input: make.stdout, stdio: ['pipe', 'inherit', 'inherit'] });
}

const adminLine = fromEnvironment
  ? 'password: the value of LEVELDAP_ADMIN_PASSWORD'
  : `password: ${readFileSync(passwordFile, 'utf8')}   (kept in ${shown(passwordFile)})`;
const adminSecret = fromEnvironment ? '-w "$LEVELDAP_ADMIN_PASSWORD"' : `-y ${shown(passwordFile)}`;
console.log(`
leveldap on ldap://127.0.0.1:${PORT}  (data: ${shown(data)})
  admin:  cn=Directory Manager  ${adminLine}
  users:  uid=user.0 .. uid=user.${USERS - 1},ou=People,dc=example,dc=com  password: password
  groups: cn=group.0 .. cn=group.${GROUPS - 1},ou=Groups,dc=example,dc=com (groupOfNames; some nested)

Try:
  ldapsearch -x -H ldap://127.0.0.1:${PORT} -b dc=example,dc=com '(uid=user.42)'
  ldapsearch -x -H ldap://127.0.0.1:${PORT} -b dc=example,dc=com '(uid=user.42)' memberOf
  ldapsearch -x -H ldap://127.0.0.1:${PORT} -b dc=example,dc=com '(memberOf=cn=group.1,ou=Groups,dc=example,dc=com)' 1.1
  ldapwhoami -x -H ldap://127.0.0.1:${PORT} -D uid=user.42,ou=People,dc=example,dc=com -w password
  ldapsearch -x -H ldap://127.0.0.1:${PORT} -D 'cn=Directory Manager' ${adminSecret} -b dc=example,dc=com '(uid=user.42)' userPassword
  npx authrate -h 127.0.0.1 -p ${PORT} -D 'uid=user.%d,ou=People,dc=example,dc=com' -w password -c 32 -f -g 'rand(0,${USERS})'
`);

// With the variable set, serve takes the password from it (and stores its hash).
const passwordArgs = fromEnvironment ? [] : ['--admin-password-file', passwordFile];
const server = spawn(process.execPath, [bin, 'serve', '--data', data, '--port', PORT, ...passwordArgs], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
