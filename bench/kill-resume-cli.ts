// `npm run bench:kill-resume [-- --kills N | --quick]`: the kill-resume measurement alone, on a bench environment.
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createHealthyBreakers } from './breaker';
import { buildBundles } from './bundles';
import { startEnvironment } from './environment';
import { measureKillResume, renderKillResume } from './kill-resume';
import { FULL_SIZES, QUICK_SIZES } from './options';
import { TUNED_SETUP } from './run';

const USAGE = `usage: npm run bench:kill-resume [-- --kills <n>] [-- --quick] [-- --kill-delay-ms <ms>]
  --kills           how many workers to SIGKILL (default ${FULL_SIZES.killResumeKills}; --quick: ${QUICK_SIZES.killResumeKills})
  --kill-delay-ms   kill this long after the attempt's request reached the provider (default: kills spread
                    evenly over one heartbeat timeout; 0 is the worst case, before the first heartbeat)`;

function log(text: string): void {
  process.stderr.write(`[bench:kill-resume] ${text}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kills: { type: 'string' },
      'kill-delay-ms': { type: 'string' },
      quick: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const kills = Number(values.kills ?? (values.quick ? QUICK_SIZES : FULL_SIZES).killResumeKills);
  if (!Number.isInteger(kills) || kills < 1) throw new Error(`--kills must be a positive integer\n${USAGE}`);
  const killDelayMs = values['kill-delay-ms'] === undefined ? 'spread' : Number(values['kill-delay-ms']);
  if (killDelayMs !== 'spread' && (!Number.isInteger(killDelayMs) || killDelayMs < 0))
    throw new Error(`--kill-delay-ms must be a whole number of milliseconds\n${USAGE}`);

  Runtime.install({ logger: new DefaultLogger('ERROR') });
  log('bundling the workflows');
  const bundles = await buildBundles();
  try {
    log('starting the dev server, the fake endpoints and the driver');
    const environment = await startEnvironment(TUNED_SETUP, bundles);
    try {
      await createHealthyBreakers(environment.link, environment.fakes);
      log(`${kills} kills`);
      const result = await measureKillResume({
        address: environment.server.address,
        client: environment.client,
        driver: environment.link,
        fake: environment.fakes['0ms'],
        fakeUrls: {
          '0ms': environment.fakes['0ms'].openaiBaseURL,
          '50ms': environment.fakes['50ms'].openaiBaseURL,
        },
        settings: TUNED_SETUP.worker,
        bundles,
        taskQueue: `${environment.taskQueue}-kill`,
        kills,
        killDelayMs,
        onKill: (kill, sample, error) =>
          log(
            sample
              ? `  kill ${kill}/${kills}: resumed after ${sample.resumeMs} ms (noticed ${sample.noticedMs}, ` +
                  `picked up ${sample.pickedUpMs}${sample.stickyTimedOut ? ' after a sticky timeout' : ''}, sent ${sample.sentMs})`
              : `  ${error}`,
          ),
      });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n\n${renderKillResume(result)}\n`);
    } finally {
      await environment.stop();
    }
  } finally {
    bundles.remove();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench:kill-resume failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
