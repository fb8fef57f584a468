#!/usr/bin/env node
// Builds the Node-API addons under native/ with node-gyp; run by npm's `install` script and by
// `npm run build:native`. Both are optional: without a C compiler (or a library's headers) a build
// fails, this prints one warning per addon and exits 0, so installation still works:
// - native/pbkdf2: PBKDF2-SHA1/SHA256/SHA512 over the OpenSSL inside Node; without it PBKDF2 uses
//   node:crypto (schemes/kdf.ts), 1.5-1.9x slower per iteration.
// - native/sha-crypt: SHA-crypt ($5$, $6$) over the OpenSSL inside Node; without it libxcrypt hashes
//   them (schemes/crypt.ts), 1.3x slower for $6$.
// - native/fd-dup: a listening socket per serving thread, bound with SO_REUSEPORT, for
//   `serve --threads`; without it serve runs one thread (src/server/net/listen-socket.ts).
// - native/argon2: Argon2 through libargon2 (the reference implementation, what OpenLDAP links);
//   without it the {ARGON2} scheme is unavailable (schemes/argon2.ts).
// - native/xcrypt: crypt(3) through libxcrypt (yescrypt, SHA-crypt, bcrypt, MD5-crypt, DES);
//   without it {CRYPT} and {BCRYPT} are unavailable (schemes/crypt.ts).
// - native/snappy: snappy compression through libsnappy, for the tables a bulk load writes itself
//   (src/store/tables/); without it import-ldif loads through LevelDB's memtable, as before.
// - native/sys: TCP_INFO (a paused connection sees its client leave) and malloc_trim (memory
//   handed back after clients leave); without it neither happens (src/server/net/native-sys.ts).
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const ADDONS = [
  { dir: 'pbkdf2', what: 'the PBKDF2 addon', without: 'PBKDF2 falls back to node:crypto, 1.5-1.9x slower per iteration', needs: 'build-essential python3' },
  { dir: 'sha-crypt', what: 'the SHA-crypt addon', without: '$5$ and $6$ crypt(3) values are hashed by libxcrypt, 1.3x slower for $6$', needs: 'build-essential python3' },
  { dir: 'fd-dup', what: 'the fd-dup addon', without: 'serve --threads falls back to one thread', needs: 'build-essential python3' },
  { dir: 'argon2', what: 'the Argon2 addon', without: 'the {ARGON2} scheme is unavailable', needs: 'build-essential libargon2-dev python3' },
  { dir: 'xcrypt', what: 'the crypt(3) addon', without: 'the {CRYPT} and {BCRYPT} schemes are unavailable', needs: 'build-essential libcrypt-dev python3' },
  { dir: 'snappy', what: 'the snappy addon', without: 'import-ldif loads a large file through LevelDB\'s memtable instead of writing its tables itself', needs: 'build-essential libsnappy-dev python3' },
  { dir: 'sys', what: 'the sys addon', without: 'a connection whose reading is paused does not see its client leave, and freed memory is not handed back to the kernel', needs: 'build-essential python3' },
];

/** npm sets npm_config_node_gyp to its own node-gyp while it runs a package script. */
function nodeGypCommand() {
  const nodeGyp = process.env.npm_config_node_gyp;
  if (nodeGyp) return { command: process.execPath, args: [nodeGyp, 'rebuild'] };
  return { command: process.platform === 'win32' ? 'npx.cmd' : 'npx', args: ['node-gyp', 'rebuild'] };
}

/** The first line that says what went wrong (a missing header, no compiler, ...). */
function reason(output, result) {
  if (result.error) return result.error.message;
  const lines = output.split('\n').map((line) => line.trim());
  return lines.find((line) => /(fatal )?error:|not found|command not found/i.test(line) && !line.startsWith('gyp ERR!'))
    ?? lines.find((line) => line.startsWith('gyp ERR! stack Error:'))?.slice('gyp ERR! stack '.length)
    ?? `node-gyp exited with status ${result.status}`;
}

const { command, args } = nodeGypCommand();
for (const addon of ADDONS) {
  const result = spawnSync(command, args, { cwd: join(__dirname, '..', 'native', addon.dir), encoding: 'utf8' });
  const output = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
  if (result.status === 0) {
    process.stdout.write(`leveldap: built ${addon.what} (native/${addon.dir})\n`);
  } else {
    process.stderr.write(`leveldap: warning: could not build ${addon.what} (${reason(output, result)}); ${addon.without}. `
      + `To fix: apt-get install ${addon.needs}, then npm run build:native\n`);
  }
}
