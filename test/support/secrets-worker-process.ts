// A Switchyard worker in its own process for the secrets test: the real `runWorker` composition (config file,
// keys from the environment), its runtime logging everything at DEBUG to stdout in full. Run with tsx.
import { inspect } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runWorker } from '../../src/worker';

/** Every nested field, every string in full: a leak deep inside an error's cause must show. */
const FULL = { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity, breakLength: Infinity };

// DEBUG: more than a production worker logs, so the scan covers every line the SDK and our code can write.
Runtime.install({
  logger: new DefaultLogger('DEBUG', (entry) => {
    const meta = entry.meta === undefined ? '' : ` ${inspect(entry.meta, FULL)}`;
    process.stdout.write(`[log] ${entry.level} ${entry.message}${meta}\n`);
  }),
});

runWorker({ metrics: false }).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
