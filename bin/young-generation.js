'use strict';
// The main thread's young generation for `serve` (bin/leveldap.js), in MiB of semi-space:
// - 1 for a server: with threads the main thread serves nothing, and with V8's default its young
//   generation grew to 16-33 MB during start-up and the password table's walk and kept them
//   (100,000 users: RSS after 60 s of binds 205-214 MB against 229-257; docs/performance.md, "The
//   main thread's young generation"), so it is as small as each serving worker's (3 MiB young,
//   src/server/threads/supervisor.ts).
// - 8 for a node of a PostgreSQL store (--store, on the command line or in the --config file),
//   which serves on its main thread: its writes keep more in flight (their statements, the stream
//   it applies), and with 1 MiB the collector copied it so often that it took 38% of the thread
//   (docs/scale-out.md, "Writes committed together": 1.4x the modifies/s with 8).
const { readFileSync } = require('node:fs');

const SERVER_SEMI_SPACE_MB = 1;
const NODE_SEMI_SPACE_MB = 8;

/** The value of `--name VALUE` or `--name=VALUE` in the arguments, or undefined. */
function flagValue(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

/** Whether `serve` runs as a node of a PostgreSQL store: --store, or a "store" in the --config file (JSON). */
function servesAsNode(args) {
  if (flagValue(args, '--store') !== undefined) return true;
  const config = flagValue(args, '--config');
  if (config === undefined) return false;
  try {
    const parsed = JSON.parse(readFileSync(config, 'utf8'));
    return typeof parsed?.store === 'string';
  } catch {
    return false; // serve itself says what is wrong with the file
  }
}

/** The semi-space size (MiB) `serve` runs with, given its arguments (those after `serve`). */
function semiSpaceMb(args) {
  return servesAsNode(args) ? NODE_SEMI_SPACE_MB : SERVER_SEMI_SPACE_MB;
}

module.exports = { semiSpaceMb, NODE_SEMI_SPACE_MB, SERVER_SEMI_SPACE_MB };
