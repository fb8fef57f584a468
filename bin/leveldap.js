#!/usr/bin/env node
'use strict';
// PBKDF2 runs in libuv's thread pool (4 threads by default): give it a thread per core so
// hashing at import and binds use every core. This must happen before the pool first starts,
// which an ES module entry point is too late for; hence CommonJS here (bin/package.json).
const { availableParallelism } = require('node:os');

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(4, availableParallelism()));

import('../dist/src/cli/main.js').then(({ main }) => main(process.argv)).catch((error) => {
  process.stderr.write(`leveldap: ${error?.stack ?? String(error)}\n`);
  process.exit(1);
});
