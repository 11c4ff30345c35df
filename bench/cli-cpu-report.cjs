// Preloaded into each timed CLI process by bench/cli-startup.ts: reports the process's own CPU time on fd 3. Bench side.
'use strict';
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(3, JSON.stringify({ cpuMs: (user + system) / 1000 }));
});
