'use strict';
// The starter of the load tools (bin/authrate.js, bin/searchrate.js, bin/modrate.js). CommonJS like
// bin/leveldap.js (bin/package.json): each compiled tool is an ES module with a main, loaded here.
exports.start = (name) => {
  import(`../dist/src/authrate/${name}.js`).then(({ main }) => main(process.argv)).catch((error) => {
    process.stderr.write(`${name}: ${error?.stack ?? String(error)}\n`);
    process.exit(1);
  });
};
