// The gateway path (issue 15): each surface's added latency over the client API and over a direct call, time to
// first token, and calls/s at 20 concurrent streams. `measureGateway` is for bench/run.ts; run alone,
// `tsx bench/gateway.ts --quick`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { KeyStore, startGateway, SwitchyardClient, type Config } from 'switchyard';
import { startDevServer, startFakeProvider } from 'switchyard/testing';
import { createProviderRegistry, createSwitchyardWorker } from 'switchyard/worker';
import { BENCH_KEYS, BENCH_MODELS, benchConfig, benchConfigFile, MODE_ROUTE } from './bench-config';
import { measureGatewayMemory, writeConfigFile } from './gateway-memory';
import { LITELLM_MODEL, startLitellmLane } from './litellm';
import {
  GATEWAY_SURFACES,
  gatewayPaths,
  peerPaths,
  type BenchPath,
  type GatewayPathName,
  type GatewaySurface,
  type PathTiming,
  type PeerEndpoint,
} from './gateway-paths';
import { renderGatewayTable } from './gateway-report';
import { summarize, type Summary } from './stats';

export interface GatewayBenchSetup {
  /** Bound to a task queue whose workers run `config`. */
  readonly switchyard: SwitchyardClient;
  readonly config: Config;
  /** The route every path calls (its first target answers). */
  readonly route: string;
  /** The first target's provider as the direct path calls it: the same SDK and endpoint the worker uses. */
  readonly direct: { readonly baseURL: string; readonly apiKey: string; readonly model: string };
  /** A peer proxy (LiteLLM's) on the same deployment, timed beside the gateway. @default none */
  readonly peer?: PeerEndpoint;
}

export interface GatewayBenchSizes {
  /** Calls of every path before measuring. */
  readonly warmupCalls: number;
  /** Sequential samples of every path, interleaved path by path. */
  readonly samples: number;
  /** Streams in flight at once in the throughput part, on each surface in turn. */
  readonly concurrency: number;
  /** How long each surface's throughput part runs, in milliseconds. */
  readonly durationMs: number;
}

export const GATEWAY_BENCH_SIZES = {
  full: { warmupCalls: 10, samples: 60, concurrency: 20, durationMs: 30_000 },
  quick: { warmupCalls: 3, samples: 15, concurrency: 20, durationMs: 8_000 },
} as const satisfies Record<string, GatewayBenchSizes>;

/** Streams in flight at once while the gateway process's memory is read (the 50). */
const GATEWAY_MEMORY_CONCURRENCY = 50;

/** One surface's figures beside the floors: the same call JSON and streamed, and its time to first token. */
type PeerPathName = keyof ReturnType<typeof peerPaths>;

export interface SurfaceFigures {
  readonly json: Summary;
  readonly stream: Summary;
  readonly timeToFirstToken: Summary;
  /** p50 differences, ms. */
  readonly addedP50Ms: {
    readonly jsonOverClientApi: number;
    readonly jsonOverDirect: number;
    readonly streamOverClientApiStream: number;
    readonly streamOverDirectStream: number;
    readonly ttftOverDirectTtft: number;
  };
  /** p50 ratios to the floors: the direct call and the client API's routed call. */
  readonly ratioP50: {
    readonly jsonToDirect: number;
    readonly jsonToClientApi: number;
    readonly streamToDirectStream: number;
    readonly streamToClientApiStream: number;
    readonly ttftToDirectTtft: number;
  };
  /** `concurrency` streams in flight at once on this surface for the throughput part. */
  readonly concurrent: {
    readonly concurrency: number;
    readonly durationS: number;
    readonly calls: number;
    readonly errors: number;
    readonly callsPerS: number;
    readonly timeToFirstToken: Summary;
    readonly total: Summary;
  };
}

export interface GatewayBenchResults {
  /** The floors every surface is set against, ms: a direct call to the provider and the client API's routed call. */
  readonly floors: {
    readonly directJson: Summary;
    readonly directStream: Summary;
    readonly directTimeToFirstToken: Summary;
    readonly clientApi: Summary;
    /** The attempt streams from the provider; the caller gets the answer whole. */
    readonly clientApiStream: Summary;
  };
  readonly surfaces: Readonly<Record<GatewaySurface, SurfaceFigures>>;
  /** The peer proxy's same calls, when it ran. */
  readonly peer?: PeerFigures;
}

/** The peer proxy's figures, and the gateway's against them (Chat Completions, the surface both speak). */
export interface PeerFigures {
  readonly json: Summary;
  readonly stream: Summary;
  readonly timeToFirstToken: Summary;
  readonly addedP50Ms: {
    readonly jsonOverDirect: number;
    readonly streamOverDirectStream: number;
    readonly ttftOverDirectTtft: number;
  };
  readonly concurrent: Awaited<ReturnType<typeof measureConcurrent>>;
  /** Per surface: its added p50 over the direct call ÷ the peer's, and its calls/s at concurrency ÷ the peer's. */
  readonly ratios: Readonly<
    Record<
      GatewaySurface,
      { readonly addedJson: number; readonly addedStream: number; readonly callsPerSAtConcurrency: number }
    >
  >;
}

/** Runs `path` from `concurrency` callers at once for `durationMs`. */
async function measureConcurrent(path: BenchPath, concurrency: number, durationMs: number) {
  const samples: PathTiming[] = [];
  let errors = 0;
  const began = performance.now();
  const until = began + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        try {
          samples.push(await path());
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const elapsedS = (performance.now() - began) / 1000;
  return {
    concurrency,
    durationS: Math.round(elapsedS * 10) / 10,
    calls: samples.length,
    errors,
    callsPerS: Math.round((samples.length / elapsedS) * 10) / 10,
    timeToFirstToken: summarize(samples.map((sample) => sample.ttftMs)),
    total: summarize(samples.map((sample) => sample.totalMs)),
  };
}

const difference = (left: number, right: number) => Math.round((left - right) * 10) / 10;
const ratio = (left: number, right: number) => Math.round((left / right) * 100) / 100;

export async function measureGateway(
  setup: GatewayBenchSetup,
  sizes: GatewayBenchSizes,
  log: (text: string) => void = () => undefined,
): Promise<GatewayBenchResults> {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-keys-'));
  const keys = new KeyStore({ file: path.join(directory, 'keys.json') });
  const { key } = keys.create({ routes: ['*'] });
  // BENCH_GATEWAY_ANSWER_AFTER_RECORD=1 measures the gateway answering only once each call has ended.
  const gateway = await startGateway({
    switchyard: setup.switchyard,
    config: setup.config,
    keys,
    port: 0,
    ...(process.env.BENCH_GATEWAY_ANSWER_AFTER_RECORD === '1' ? { earlyAnswers: false } : {}),
  });
  const paths: Partial<Record<PeerPathName, BenchPath>> & Record<GatewayPathName, BenchPath> = {
    ...gatewayPaths({ ...setup, gatewayUrl: gateway.url, gatewayKey: key }),
    ...(setup.peer ? peerPaths(setup.peer) : {}),
  };
  const names = Object.keys(paths) as (GatewayPathName | PeerPathName)[];
  try {
    log(`gateway: warm-up ${sizes.warmupCalls} calls per path`);
    for (let index = 0; index < sizes.warmupCalls; index += 1) for (const name of names) await paths[name]!();
    log(`gateway: ${sizes.samples} sequential samples per path (${names.length} paths), interleaved`);
    const samples = Object.fromEntries(names.map((name) => [name, [] as PathTiming[]])) as Record<
      GatewayPathName | PeerPathName,
      PathTiming[]
    >;
    for (let index = 0; index < sizes.samples; index += 1) {
      for (const name of names) samples[name].push(await paths[name]!());
    }
    const totals = (name: GatewayPathName | PeerPathName) =>
      summarize(samples[name].map((sample) => sample.totalMs));
    const ttfts = (name: GatewayPathName | PeerPathName) =>
      summarize(samples[name].map((sample) => sample.ttftMs));
    const floors = {
      directJson: totals('directJson'),
      directStream: totals('directStream'),
      directTimeToFirstToken: ttfts('directStream'),
      clientApi: totals('clientApi'),
      clientApiStream: totals('clientApiStream'),
    };
    const surfaces = {} as Record<GatewaySurface, SurfaceFigures>;
    for (const surface of GATEWAY_SURFACES) {
      log(`gateway: ${sizes.concurrency} concurrent ${surface} streams for ${sizes.durationMs / 1000} s`);
      const json = totals(`${surface}Json`);
      const stream = totals(`${surface}Stream`);
      const timeToFirstToken = ttfts(`${surface}Stream`);
      surfaces[surface] = {
        json,
        stream,
        timeToFirstToken,
        addedP50Ms: {
          jsonOverClientApi: difference(json.p50, floors.clientApi.p50),
          jsonOverDirect: difference(json.p50, floors.directJson.p50),
          streamOverClientApiStream: difference(stream.p50, floors.clientApiStream.p50),
          streamOverDirectStream: difference(stream.p50, floors.directStream.p50),
          ttftOverDirectTtft: difference(timeToFirstToken.p50, floors.directTimeToFirstToken.p50),
        },
        ratioP50: {
          jsonToDirect: ratio(json.p50, floors.directJson.p50),
          jsonToClientApi: ratio(json.p50, floors.clientApi.p50),
          streamToDirectStream: ratio(stream.p50, floors.directStream.p50),
          streamToClientApiStream: ratio(stream.p50, floors.clientApiStream.p50),
          ttftToDirectTtft: ratio(timeToFirstToken.p50, floors.directTimeToFirstToken.p50),
        },
        concurrent: await measureConcurrent(paths[`${surface}Stream`], sizes.concurrency, sizes.durationMs),
      };
    }
    if (!paths.peerStream) return { floors, surfaces };
    log(
      `gateway: ${sizes.concurrency} concurrent streams through the peer proxy for ${sizes.durationMs / 1000} s`,
    );
    const peerJson = totals('peerJson');
    const peerStream = totals('peerStream');
    const peerTtft = ttfts('peerStream');
    const addedP50Ms = {
      jsonOverDirect: difference(peerJson.p50, floors.directJson.p50),
      streamOverDirectStream: difference(peerStream.p50, floors.directStream.p50),
      ttftOverDirectTtft: difference(peerTtft.p50, floors.directTimeToFirstToken.p50),
    };
    const concurrent = await measureConcurrent(paths.peerStream, sizes.concurrency, sizes.durationMs);
    const ratios = Object.fromEntries(
      GATEWAY_SURFACES.map((surface) => {
        const figures = surfaces[surface];
        return [
          surface,
          {
            addedJson: ratio(figures.addedP50Ms.jsonOverDirect, addedP50Ms.jsonOverDirect),
            addedStream: ratio(figures.addedP50Ms.streamOverDirectStream, addedP50Ms.streamOverDirectStream),
            callsPerSAtConcurrency: ratio(figures.concurrent.callsPerS, concurrent.callsPerS),
          },
        ];
      }),
    ) as PeerFigures['ratios'];
    const peer = {
      json: peerJson,
      stream: peerStream,
      timeToFirstToken: peerTtft,
      addedP50Ms,
      concurrent,
      ratios,
    };
    return { floors, surfaces, peer };
  } finally {
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Alone: a dev server, the fake at 50 ms streaming in pieces, one worker and the gateway, all in this process. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  const sizes = values.quick ? GATEWAY_BENCH_SIZES.quick : GATEWAY_BENCH_SIZES.full;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);
  log('starting the dev server, the fake provider and a worker');
  const server = await startDevServer({
    headless: true,
    dynamicConfig: { 'system.enableActivityEagerExecution': true },
  });
  const fake = await startFakeProvider({ latencyMs: 50 });
  // 50 ms to the first byte, then a piece every 10 ms: first token and whole call differ.
  fake.scriptAlways(BENCH_MODELS.healthy, { kind: 'answer', chunkDelayMs: 10 });
  const config = benchConfig({ '0ms': fake.openaiBaseURL, '50ms': fake.openaiBaseURL });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = `bench-gateway-${Date.now().toString(36)}`;
  const worker = await createSwitchyardWorker({
    config,
    connection: nativeConnection,
    taskQueue,
    providers: createProviderRegistry(config, { ...BENCH_KEYS }),
  });
  const switchyard = new SwitchyardClient({ client: new Client({ connection }), taskQueue, config });
  // The peer: LiteLLM's proxy on the same fake deployment, when installed (npm run bench:litellm:install).
  const peerLane = await startLitellmLane({ '0ms': fake.openaiBaseURL, '50ms': fake.openaiBaseURL });
  log(
    peerLane.proxy
      ? `LiteLLM ${peerLane.proxy.version} proxy beside the gateway`
      : `LiteLLM skipped: ${peerLane.skipped}`,
  );
  const setup = {
    switchyard,
    config,
    route: MODE_ROUTE['50ms'],
    direct: { baseURL: fake.openaiBaseURL, apiKey: BENCH_KEYS.BENCH_FAKE_KEY, model: BENCH_MODELS.healthy },
    ...(peerLane.proxy ? { peer: { ...peerLane.proxy.endpoint, model: LITELLM_MODEL['50ms'] } } : {}),
  };
  const configFile = writeConfigFile(
    benchConfigFile({ '0ms': fake.openaiBaseURL, '50ms': fake.openaiBaseURL }),
  );
  try {
    const [results, memory] = await worker.runUntil(
      (async () => {
        const measured = await measureGateway(setup, sizes, log);
        log(
          `gateway process: ${GATEWAY_MEMORY_CONCURRENCY} concurrent chat streams for ${sizes.durationMs / 1000} s`,
        );
        const gatewayMemory = await measureGatewayMemory({
          configFile: configFile.file,
          temporalAddress: server.address,
          taskQueue,
          paths: setup,
          concurrency: GATEWAY_MEMORY_CONCURRENCY,
          durationMs: sizes.durationMs,
        });
        return [measured, gatewayMemory] as const;
      })(),
    );
    const outFile = path.join(__dirname, 'results', values.quick ? 'gateway-quick.tmp.json' : 'gateway.json');
    mkdirSync(path.dirname(outFile), { recursive: true });
    writeFileSync(outFile, `${JSON.stringify({ sizes, results, gatewayProcess: memory }, null, 2)}\n`);
    process.stdout.write(`${renderGatewayTable(results)}\n`);
    process.stdout.write(
      `\n\`switchyard serve\` in its own process, ${memory.concurrency} concurrent chat streams: RSS ${memory.idleRssMb} MB ` +
        `after one call, peak ${memory.peakRssMb} MB; ${memory.callsPerS} calls/s (${memory.calls} calls, ` +
        `${memory.errors} errors), first token p50 ${memory.timeToFirstToken.p50} ms\n`,
    );
    log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    configFile.remove();
    await peerLane.proxy?.stop();
    await connection.close();
    await nativeConnection.close();
    await fake.close();
    await server.stop();
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
