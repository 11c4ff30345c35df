// `npm run bench`: every measurement in one process tree, against the fake provider; writes bench/results.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { benchConfig, LATENCY_MODES } from './bench-config';
import { buildBundles, type BundlePaths } from './bundles';
import {
  createHealthyBreakers,
  HEALTHY_BREAKER_KEYS,
  healthyBreakerLoad,
  markBreakers,
  measureOutage,
} from './breaker';
import { startCpuAccount } from './cpu-account';
import { startEnvironment, type BenchSetup } from './environment';
import { measureCancellation } from './cancellation';
import { measureFailover } from './failover';
import { measureKillResume } from './kill-resume';
import { measureLatency } from './latency';
import { measureLedger } from './ledger';
import { startLitellmLane } from './litellm';
import { calibrate, describeMachine } from './machine';
import { parseBenchArguments, type BenchSizes } from './options';
import { profileCalls, summarizeActivityTimings, type CallProfile } from './profile';
import { buildResults, renderProfile, renderTables, type BenchResults } from './report';
import { measureSideBySide, measureThroughput } from './throughput';

/** Concurrency of the side-by-side throughput of bare workflows and routed calls (the 20). */
const SIDE_BY_SIDE_CONCURRENCY = 20;
import { runTuning } from './tuning';

/**
 * The settings the standard run uses: what the tuning matrix found best (docs/performance.md, "Settings").
 * Eager activity dispatch is a server switch; eager workflow start is asked for by the client.
 */
export const TUNED_SETUP: BenchSetup = {
  dynamicConfig: { 'system.enableActivityEagerExecution': true },
  worker: { eagerStart: true, workerOptions: {} },
};

function log(text: string): void {
  process.stderr.write(`[bench] ${text}\n`);
}

export async function runBench(
  sizes: BenchSizes,
  setup: BenchSetup,
  bundles: BundlePaths,
  quick: boolean,
): Promise<BenchResults> {
  const startedAt = new Date();
  const machine = { ...describeMachine(), calibration: await calibrate() };
  const cpu = startCpuAccount();
  log(`starting the dev server, two fake endpoints and the worker process (${quick ? 'quick' : 'full'} run)`);
  const environment = await startEnvironment(setup, bundles, { withDefaults: true });
  const { link, client, fakes } = environment;
  // The optional peer lane: LiteLLM's proxy on the same fakes (never fails the bench; says why it is absent).
  const peer = await startLitellmLane({
    '0ms': fakes['0ms'].openaiBaseURL,
    '50ms': fakes['50ms'].openaiBaseURL,
  });
  const litellmIdleRssBytes = peer.proxy?.rssBytes() ?? 0;
  log(
    peer.proxy
      ? `LiteLLM ${peer.proxy.version} proxy, pid ${peer.proxy.pid}`
      : `LiteLLM lane skipped: ${peer.skipped}`,
  );
  try {
    const idleWorkerRssBytes = await environment.loadWorker.rssBytes();
    await createHealthyBreakers(link, fakes);
    const breakersBefore = await markBreakers(environment.breakers, HEALTHY_BREAKER_KEYS);

    log(
      `latency: ${sizes.rounds} rounds × ${sizes.samplesPerRound} samples × ${peer.proxy ? 6 : 5} lanes × ${LATENCY_MODES.length} modes`,
    );
    const latency = await measureLatency(link, {
      warmupCalls: sizes.warmupCalls,
      rounds: sizes.rounds,
      samplesPerRound: sizes.samplesPerRound,
      batchMaxMs: sizes.batchMaxMs,
      cpuPids: { worker: link.pid, server: environment.server.process.pid! },
      ...(environment.defaults
        ? {
            defaults: {
              link: environment.defaults.link,
              cpuPids: {
                worker: environment.defaults.link.pid,
                server: environment.defaults.server.process.pid!,
              },
            },
          }
        : {}),
      ...(peer.proxy ? { litellm: { peer: peer.proxy.endpoint, pid: peer.proxy.pid } } : {}),
      onRound: (round) => log(`  round ${round}/${sizes.rounds}`),
    });
    const activityTimings = summarizeActivityTimings(
      await link.send({ kind: 'activityTimings', reset: true }),
    );

    log(
      `side by side: bare and routed calls${peer.proxy ? ', direct and LiteLLM calls' : ''}, ${SIDE_BY_SIDE_CONCURRENCY} concurrent`,
    );
    const sideBySide = await measureSideBySide(link, {
      mode: '50ms',
      concurrency: SIDE_BY_SIDE_CONCURRENCY,
      durationMs: sizes.throughputDurationMs,
      ...(peer.proxy ? { litellm: peer.proxy } : {}),
    });

    log(
      `throughput: concurrency ${sizes.throughputConcurrency.join(', ')} × ${sizes.throughputDurationMs / 1000} s`,
    );
    const throughput = await measureThroughput(link, environment.loadWorker, {
      taskQueue: environment.loadTaskQueue,
      mode: '50ms',
      concurrency: sizes.throughputConcurrency,
      durationMs: sizes.throughputDurationMs,
      onLevel: (level) =>
        log(
          `  ${level.concurrency} concurrent: ${level.callsPerS}/s, p99 ${level.latency.p99} ms, RSS ${level.peakRssMb} MB`,
        ),
    });
    const breakersAfter = await markBreakers(environment.breakers, HEALTHY_BREAKER_KEYS);
    const healthyBreaker = healthyBreakerLoad(
      breakersBefore,
      breakersAfter,
      latency.routedCalls + throughput.routedCalls,
    );

    log(`breaker outage: ${sizes.outageConcurrency} concurrent × ${sizes.outageDurationMs / 1000} s`);
    const outage = await measureOutage(link, environment.breakers, fakes['0ms'], {
      concurrency: sizes.outageConcurrency,
      durationMs: sizes.outageDurationMs,
      openingMs: sizes.outageOpeningMs,
    });

    log('ledger: 10 and 100 callers on one scope');
    const tag = startedAt.getTime().toString(36);
    const ledger = {
      c10: await measureLedger(link, environment.ledgers, {
        callers: 10,
        grants: sizes.ledgerGrants.c10,
        maxDurationMs: sizes.ledgerMaxDurationMs,
        tag,
      }),
      c100: await measureLedger(link, environment.ledgers, {
        callers: 100,
        grants: sizes.ledgerGrants.c100,
        maxDurationMs: sizes.ledgerMaxDurationMs,
        tag,
      }),
    };

    log(`failover: ${sizes.failoverCalls} calls without a budget scope, and as many with one`);
    await link.send({ kind: 'activityTimings', reset: true });
    const failover = await measureFailover(
      link,
      fakes['0ms'],
      sizes.failoverCalls,
      sizes.failoverMaxMs,
      'routed',
    );
    const failoverBudgeted = await measureFailover(
      link,
      fakes['0ms'],
      sizes.failoverCalls,
      sizes.failoverMaxMs,
      'budgeted',
    );
    const failoverTimings = summarizeActivityTimings(
      await link.send({ kind: 'activityTimings', reset: true }),
    );

    log(`cancellation: ${sizes.cancellationCalls} calls cancelled mid-request`);
    const cancellation = await measureCancellation(
      client,
      environment.taskQueue,
      benchConfig({ '0ms': fakes['0ms'].openaiBaseURL, '50ms': fakes['50ms'].openaiBaseURL }),
      fakes['0ms'],
      { calls: sizes.cancellationCalls, concurrency: sizes.cancellationConcurrency },
    );

    log('profile: reading histories');
    const profile: Record<string, CallProfile> = {};
    for (const mode of LATENCY_MODES) {
      for (const variant of ['bare', 'routed', 'budgeted'] as const) {
        const { ids, latenciesMs } = latency.lastRound[mode][variant];
        profile[`${variant} (fake at ${mode})`] = await profileCalls(
          client,
          ids.slice(0, sizes.profileCalls),
          latenciesMs.slice(0, sizes.profileCalls),
        );
      }
    }
    profile['failover (fake at 0ms)'] = await profileCalls(
      client,
      failover.workflowIds.slice(0, sizes.profileCalls),
      failover.callLatenciesMs.slice(0, sizes.profileCalls),
    );
    const cpuShare = cpu.read([
      environment.server.process.pid!,
      link.pid,
      ...(peer.proxy ? [peer.proxy.pid] : []),
    ]);

    // Last: its worker processes start and die beside the server, which would disturb what is measured above.
    log(`kill-resume: ${sizes.killResumeKills} workers SIGKILLed mid-attempt`);
    const killResume = await measureKillResume({
      address: environment.server.address,
      client,
      driver: link,
      fake: fakes['0ms'],
      fakeUrls: { '0ms': fakes['0ms'].openaiBaseURL, '50ms': fakes['50ms'].openaiBaseURL },
      settings: setup.worker,
      bundles,
      taskQueue: `${environment.taskQueue}-kill`,
      kills: sizes.killResumeKills,
      onKill: (kill, sample, error) =>
        log(sample ? `  kill ${kill}: resumed after ${sample.resumeMs} ms` : `  ${error}`),
    });

    return buildResults({
      quick,
      startedAt,
      durationS: Math.round((Date.now() - startedAt.getTime()) / 1000),
      machine,
      cpu: cpuShare,
      setup,
      latency,
      sideBySide,
      throughput,
      healthyBreaker,
      outage,
      ledger,
      failover,
      failoverBudgeted,
      cancellation,
      killResume,
      idleWorkerRssMb: Math.round((idleWorkerRssBytes / 2 ** 20) * 10) / 10,
      profile,
      activityTimings: {
        ...activityTimings,
        ...Object.fromEntries(
          Object.entries(failoverTimings).map(([label, summary]) => [`${label} (failover)`, summary]),
        ),
      },
      litellm: peer.proxy
        ? { version: peer.proxy.version, idleRssMb: Math.round((litellmIdleRssBytes / 2 ** 20) * 10) / 10 }
        : { skipped: peer.skipped },
    });
  } finally {
    await peer.proxy?.stop();
    await environment.stop();
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const options = parseBenchArguments(process.argv.slice(2));
  mkdirSync(path.dirname(options.outFile), { recursive: true });
  log('bundling the workflows');
  const bundles = await buildBundles();
  try {
    if (options.tune) {
      const tuning = await runTuning(options.sizes, bundles, options.quick, log);
      writeFileSync(options.outFile, `${JSON.stringify(tuning, null, 2)}\n`);
      log(`wrote ${path.relative(process.cwd(), options.outFile)}`);
      return;
    }
    const results = await runBench(options.sizes, TUNED_SETUP, bundles, options.quick);
    writeFileSync(options.outFile, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${renderTables(results)}\n\n${renderProfile(results)}\n`);
    log(`wrote ${path.relative(process.cwd(), options.outFile)}`);
  } finally {
    bundles.remove();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
