#!/usr/bin/env node
'use strict';
// PBKDF2 runs in libuv's thread pool (4 threads by default): give it a thread per core so
// hashing at import and binds use every core. This must happen before the pool first starts,
// which an ES module entry point is too late for; hence CommonJS here (bin/package.json).
const { availableParallelism } = require('node:os');

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(4, availableParallelism()));

// `serve` runs with three V8 flags, which cannot be set once V8 runs, so the process image is
// started again with them (execv through native/sys: same pid, stdio and environment):
// - --single-threaded-gc: the collector on the thread that needs it; its helper threads otherwise
//   compete with the serving threads for the cores, and a serving thread waits for them
//   mid-collection (binds' p99.9 20-30% lower, p99.99 about half: docs/performance.md, "The
//   collector's helper threads"). LEVELDAP_PARALLEL_GC=1 keeps V8's default.
// - --no-allocation-site-pretenuring: caches that fill with a request's objects (the bound names,
//   10,000 of them) teach V8 to allocate every later object of those sites in the old generation,
//   where, dead at once, they keep what they point to alive through each young collection: at a
//   million users every bind's name was promoted and collected by a full collection, 25% of the
//   bind rate (docs/performance.md, "Objects promoted at a million users"). LEVELDAP_PRETENURING=1
//   keeps V8's default.
// - --max-semi-space-size: the main thread's young generation, 1 MiB for a server, 8 for a node
//   of a PostgreSQL store (bin/young-generation.js says why). A size the caller gave (the command
//   line, NODE_OPTIONS) is kept.
// Without the addon all stay V8's defaults.
const { semiSpaceMb } = require('./young-generation.js');
const setByCaller = (name) => process.execArgv.some((arg) => arg.startsWith(name)) || (process.env.NODE_OPTIONS ?? '').includes(name);
const SERVE_FLAGS = [
  ...(process.env.LEVELDAP_PARALLEL_GC === '1' ? [] : ['--single-threaded-gc']),
  ...(process.env.LEVELDAP_PRETENURING === '1' ? [] : ['--no-allocation-site-pretenuring']),
  ...(setByCaller('--max-semi-space-size') ? [] : [`--max-semi-space-size=${process.argv[2] === 'serve' ? semiSpaceMb(process.argv.slice(3)) : 1}`]),
];
const missingFlags = SERVE_FLAGS.filter((flag) => !process.execArgv.includes(flag));
if (process.argv[2] === 'serve' && missingFlags.length > 0) {
  let sys;
  try {
    sys = require('../native/sys/build/Release/sys.node');
  } catch {
    sys = undefined;
  }
  sys?.exec(process.execPath, [process.execPath, ...missingFlags, ...process.execArgv, ...process.argv.slice(1)]);
}

import('../dist/src/cli/main.js').then(({ main }) => main(process.argv)).catch((error) => {
  process.stderr.write(`leveldap: ${error?.stack ?? String(error)}\n`);
  process.exit(1);
});
