// `npm run demo`: the embedded dev server, the fake provider and a worker, then a tour of what Switchyard does.
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/load-config';
import { callsWithFallbackQuery } from '../src/client/visibility-queries';
import { freePort, type DevServer } from '../src/engine';
import type { FakeProvider } from '../src/fake-provider';
import { installWorkerRuntime } from '../src/metrics/worker-runtime';
import { demoConfigInput, FAKE_PROVIDER_KEYS, liveKeysFromEnvironment } from './demo/demo-config';
import {
  queryLink,
  startFake,
  startServerWithProgress,
  startWorkerAndClient,
  type WorkerAndClient,
} from './demo/demo-stack';
import { heading, say } from './demo/progress';
import { breakerStep } from './demo/steps/breaker';
import { budgetStep } from './demo/steps/budget';
import { failoverStep } from './demo/steps/failover';
import { liveCallStep } from './demo/steps/live-call';
import { patienceStep } from './demo/steps/patience';
import { scheduledStep } from './demo/steps/scheduled';
import type { Tour, TourStep } from './demo/tour';

const USAGE = `Usage: npm run demo [-- --keep] [-- --only failover,breaker,budget,scheduled,patience,live]

Starts the embedded Temporal dev server, the fake provider and a worker, then tours failover, a circuit
breaker, a budget refusal, a scheduled generation and patience; with OPENAI_API_KEY / ANTHROPIC_API_KEY set,
also one call on the real APIs. --keep leaves everything up for browsing the Web UI until Ctrl-C.`;

const STEPS: Record<string, TourStep> = {
  failover: failoverStep,
  breaker: breakerStep,
  budget: budgetStep,
  scheduled: scheduledStep,
  patience: patienceStep,
  live: liveCallStep,
};

function selectedSteps(only: string | undefined): TourStep[] {
  if (!only) return Object.values(STEPS);
  return only.split(',').map((name) => {
    const step = STEPS[name.trim()];
    if (!step) throw new Error(`unknown step "${name}" (steps: ${Object.keys(STEPS).join(', ')})`);
    return step;
  });
}

async function runTour(tour: Tour, steps: readonly TourStep[]): Promise<void> {
  for (const [index, step] of steps.entries()) {
    heading(`${index + 1}/${steps.length} ${step.title}`);
    const skipped = step.skip?.(tour);
    if (skipped) say(`  ${skipped}`);
    else await step.run(tour);
  }
}

function untilInterrupted(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { keep: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    say(USAGE);
    return;
  }
  const steps = selectedSteps(values.only);
  // The demo's own metrics port, so it never collides with a worker of `npm start` on the default one.
  const runtime = installWorkerRuntime({ metrics: { port: await freePort() }, logLevel: 'ERROR' });

  let server: DevServer | undefined;
  let fake: FakeProvider | undefined;
  let stack: WorkerAndClient | undefined;
  let browsing = false;
  const stop = async () => {
    await stack?.close().catch(() => undefined);
    await fake?.close();
    await server?.stop();
  };
  // The worker's runtime stops the worker on Ctrl-C. While browsing (--keep) that ends the run normally;
  // during the tour, calls in flight would wait for a worker forever, so stop the rest and leave.
  process.once('SIGINT', () => {
    if (browsing) return;
    say('\n  interrupted: stopping the worker, the fake provider and the dev server …');
    void stop().finally(() => process.exit(130));
  });
  try {
    heading('Starting the embedded Temporal dev server (installs the Temporal CLI on first run)');
    server = await startServerWithProgress({});
    say(`  Temporal at ${server.address}, Web UI at ${server.uiUrl}`);

    heading('Starting the fake provider (speaks the OpenAI and Anthropic wire formats)');
    fake = await startFake();
    say(`  listening on ${fake.url}`);
    const live = liveKeysFromEnvironment();
    const config = parseConfig(demoConfigInput(fake, live));

    heading('Starting a Switchyard worker');
    stack = await startWorkerAndClient(server.address, config, { ...process.env, ...FAKE_PROVIDER_KEYS });
    if (runtime.metricsUrl) say(`  Prometheus metrics at ${runtime.metricsUrl}`);
    const tour: Tour = { switchyard: stack.switchyard, fake, uiUrl: server.uiUrl, live };
    const uiUrl = server.uiUrl;

    await stack.worker.runUntil(
      (async () => {
        await runTour(tour, steps);
        heading('Done');
        say(`  Every call in the Web UI:        ${uiUrl}/namespaces/default/workflows`);
        say(`  Calls that needed a fallback:    ${queryLink(uiUrl, callsWithFallbackQuery('support'))}`);
        if (runtime.metricsUrl) say(`  Worker metrics (Prometheus):     ${runtime.metricsUrl}`);
        if (values.keep) {
          browsing = true;
          say('\n  --keep: the dev server, fake provider and worker stay up. Ctrl-C stops everything.');
          await untilInterrupted();
        }
      })(),
    );
  } finally {
    await stop();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
