#!/usr/bin/env node
// Builds native/nettle-pbkdf2 (PBKDF2-SHA1/SHA256 through nettle) with node-gyp; run by npm's
// `install` script and by `npm run build:native`. Without a C compiler or nettle's headers the
// build fails: this prints one warning and exits 0, so installation still works and PBKDF2 uses
// node:crypto instead (schemes/kdf.ts).
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const addonDir = join(__dirname, '..', 'native', 'nettle-pbkdf2');

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
const result = spawnSync(command, args, { cwd: addonDir, encoding: 'utf8' });
const output = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
if (result.status === 0) {
  process.stdout.write('leveldap: built the nettle PBKDF2 addon (native/nettle-pbkdf2)\n');
} else {
  process.stderr.write(`leveldap: warning: could not build the nettle PBKDF2 addon (${reason(output, result)}); `
    + 'PBKDF2 falls back to node:crypto, about 2x slower per iteration. '
    + 'To fix: apt-get install build-essential nettle-dev python3, then npm run build:native\n');
}
