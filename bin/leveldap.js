#!/usr/bin/env node
'use strict';
// PBKDF2 runs in libuv's thread pool (4 threads by default): give it a thread per core so
// hashing at import and binds use every core. This must happen before the pool first starts,
// which an ES module entry point is too late for; hence CommonJS here (bin/package.json).
const { availableParallelism } = require('node:os');

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(4, availableParallelism()));

// `serve` runs with V8's collector on the thread that needs it (--single-threaded-gc): its
// helper threads otherwise compete with the serving threads for the cores, and a serving thread
// waits for them mid-collection (binds' p99.9 20-30% lower, p99.99 about half:
// docs/performance.md, "The collector's helper threads"). The flag cannot be set once V8 runs,
// so the process image is started again with it (execv through native/sys: same pid, stdio and
// environment). LEVELDAP_PARALLEL_GC=1, or no addon, keeps V8's default.
const GC_FLAG = '--single-threaded-gc';
if (process.argv[2] === 'serve' && !process.execArgv.includes(GC_FLAG) && process.env.LEVELDAP_PARALLEL_GC !== '1') {
  let sys;
  try {
    sys = require('../native/sys/build/Release/sys.node');
  } catch {
    sys = undefined;
  }
  sys?.exec(process.execPath, [process.execPath, GC_FLAG, ...process.execArgv, ...process.argv.slice(1)]);
}

import('../dist/src/cli/main.js').then(({ main }) => main(process.argv)).catch((error) => {
  process.stderr.write(`leveldap: ${error?.stack ?? String(error)}\n`);
  process.exit(1);
});
