// Starts a TypeScript entry with tsx registered on this thread only, so the worker's workflow threads do not
// load tsx (as a worker built to JavaScript would not). Usage: node bench/launch.cjs <entry.ts>. Bench side.
require('tsx/cjs/api').register();
require(require('node:path').resolve(process.argv[2]));
