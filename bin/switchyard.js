#!/usr/bin/env node
// The `switchyard` executable: runs the compiled CLI, or the TypeScript sources through tsx in a checkout.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');

const compiled = path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
let cli;
if (existsSync(compiled)) {
  cli = require(compiled);
} else {
  // A checkout without `npm run build`: tsx (a devDependency) compiles the sources on the fly.
  require('tsx/cjs');
  cli = require(path.join(__dirname, '..', 'src', 'cli', 'main.ts'));
}

cli.main(process.argv.slice(2)).then(
  (exitCode) => {
    // exitCode rather than process.exit(): lets stdout drain when it is a pipe.
    process.exitCode = exitCode;
  },
  (error) => {
    process.stderr.write(`switchyard: ${error && error.stack ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
