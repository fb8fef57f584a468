#!/usr/bin/env node
'use strict';
// CommonJS like bin/leveldap.js (bin/package.json): the compiled CLI is an ES module, loaded here.
import('../dist/src/authrate/authrate.js').then(({ main }) => main(process.argv)).catch((error) => {
  process.stderr.write(`authrate: ${error?.stack ?? String(error)}\n`);
  process.exit(1);
});
