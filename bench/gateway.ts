// The gateway path (issue 15): added latency over the client API and over a direct call, time to first token, and
// calls/s at 20 concurrent streams. `measureGateway` is for bench/run.ts; run alone, `tsx bench/gateway.ts --quick`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../src/activities/provider-registry';
import { SwitchyardClient } from '../src/client/switchyard-client';
import type { Config } from '../src/config/config';
import type { GenerationRequestInput } from '../src/config/request';
import { startDevServer } from '../src/engine';
import { startFakeProvider } from '../src/fake-provider';
import { startGateway } from '../src/gateway/gateway-server';
import { KeyStore } from '../src/gateway/key-store';
import { createSwitchyardWorker } from '../src/worker';
import { BENCH_KEYS, BENCH_MODELS, benchConfig, MODE_ROUTE } from './bench-config';
import { summarize, type Summary } from './stats';

export interface GatewayBenchSetup {
  /** Bound to a task queue whose workers run `config`. */
  readonly switchyard: SwitchyardClient;
  readonly config: Config;
  /** The route every path calls (its first target answers). */
  readonly route: string;
  /** The first target's provider as the direct path calls it: the same SDK and endpoint the worker uses. */
  readonly direct: { readonly baseURL: string; readonly apiKey: string; readonly model: string };
}

export interface GatewayBenchSizes {
  /** Calls of every path before measuring. */
  readonly warmupCalls: number;
  /** Sequential samples of every path, interleaved path by path. */
  readonly samples: number;
  /** Streams in flight at once in the throughput part. @default 20 */
  readonly concurrency: number;
  readonly durationMs: number;
}

export const GATEWAY_BENCH_SIZES = {
  full: { warmupCalls: 10, samples: 60, concurrency: 20, durationMs: 30_000 },
  quick: { warmupCalls: 3, samples: 15, concurrency: 20, durationMs: 8_000 },
} as const satisfies Record<string, GatewayBenchSizes>;

export interface GatewayBenchResults {
  /** Whole-call latency of each path, ms. */
  readonly total: {
    readonly directJson: Summary;
    readonly directStream: Summary;
    readonly clientApi: Summary;
    readonly clientApiStream: Summary;
    readonly gatewayJson: Summary;
    readonly gatewayStream: Summary;
  };
  /** Time to the first piece of text, ms: a direct streamed call and a stream through the gateway. */
  readonly timeToFirstToken: { readonly direct: Summary; readonly gatewayStream: Summary };
  /** p50 differences, ms. */
  readonly addedP50Ms: {
    readonly gatewayJsonOverClientApi: number;
    readonly gatewayJsonOverDirect: number;
    readonly gatewayStreamOverClientApiStream: number;
    readonly gatewayStreamOverDirectStream: number;
    readonly gatewayStreamTtftOverDirectTtft: number;
  };
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

/** Long enough that the answer streams in several pieces. */
const BENCH_PROMPT = 'Say hello in twelve words: one two three four five six seven eight nine ten eleven';

interface StreamTiming {
  readonly ttftMs: number;
  readonly totalMs: number;
}

async function timeStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>, began: number) {
  let ttftMs = Number.NaN;
  for await (const chunk of stream) {
    if (Number.isNaN(ttftMs) && chunk.choices[0]?.delta?.content) ttftMs = performance.now() - began;
  }
  return { ttftMs, totalMs: performance.now() - began };
}

export async function measureGateway(
  setup: GatewayBenchSetup,
  sizes: GatewayBenchSizes,
  log: (text: string) => void = () => undefined,
): Promise<GatewayBenchResults> {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-keys-'));
  const keys = new KeyStore({ file: path.join(directory, 'keys.json') });
  const { key } = keys.create({ routes: ['*'] });
  const gateway = await startGateway({ switchyard: setup.switchyard, config: setup.config, keys, port: 0 });
  // One HTTP client per path, the same SDK everywhere; no SDK retries, so a sample is one call.
  const direct = new OpenAI({ apiKey: setup.direct.apiKey, baseURL: setup.direct.baseURL, maxRetries: 0 });
  const viaGateway = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: BENCH_PROMPT }];
  const request: GenerationRequestInput = { messages, maxOutputTokens: 64 };

  const paths = {
    directJson: async (): Promise<StreamTiming> => {
      const began = performance.now();
      await direct.chat.completions.create({
        model: setup.direct.model,
        messages,
        max_completion_tokens: 64,
      });
      return { ttftMs: Number.NaN, totalMs: performance.now() - began };
    },
    directStream: async (): Promise<StreamTiming> => {
      const began = performance.now();
      const stream = await direct.chat.completions.create({
        model: setup.direct.model,
        messages,
        max_completion_tokens: 64,
        stream: true,
        stream_options: { include_usage: true },
      });
      return timeStream(stream, began);
    },
    clientApi: async (): Promise<StreamTiming> => {
      const began = performance.now();
      await setup.switchyard.generate({ route: setup.route, request });
      return { ttftMs: Number.NaN, totalMs: performance.now() - began };
    },
    // The attempt streams from the provider; the caller gets the answer whole.
    clientApiStream: async (): Promise<StreamTiming> => {
      const began = performance.now();
      await setup.switchyard.generate({ route: setup.route, request, stream: true });
      return { ttftMs: Number.NaN, totalMs: performance.now() - began };
    },
    gatewayJson: async (): Promise<StreamTiming> => {
      const began = performance.now();
      await viaGateway.chat.completions.create({ model: setup.route, messages, max_tokens: 64 });
      return { ttftMs: Number.NaN, totalMs: performance.now() - began };
    },
    gatewayStream: async (): Promise<StreamTiming> => {
      const began = performance.now();
      const stream = await viaGateway.chat.completions.create({
        model: setup.route,
        messages,
        max_tokens: 64,
        stream: true,
      });
      return timeStream(stream, began);
    },
  };
  type PathName = keyof typeof paths;
  const names = Object.keys(paths) as PathName[];
  try {
    log(`gateway: warm-up ${sizes.warmupCalls} calls per path`);
    for (let index = 0; index < sizes.warmupCalls; index += 1) for (const name of names) await paths[name]();
    log(`gateway: ${sizes.samples} sequential samples per path, interleaved`);
    const samples = Object.fromEntries(names.map((name) => [name, [] as StreamTiming[]])) as Record<
      PathName,
      StreamTiming[]
    >;
    for (let index = 0; index < sizes.samples; index += 1) {
      for (const name of names) samples[name].push(await paths[name]());
    }
    const totals = (name: PathName) => summarize(samples[name].map((sample) => sample.totalMs));
    const ttfts = (name: PathName) => summarize(samples[name].map((sample) => sample.ttftMs));

    log(`gateway: ${sizes.concurrency} concurrent streams for ${sizes.durationMs / 1000} s`);
    const concurrent: StreamTiming[] = [];
    let errors = 0;
    const began = performance.now();
    const until = began + sizes.durationMs;
    await Promise.all(
      Array.from({ length: sizes.concurrency }, async () => {
        while (performance.now() < until) {
          try {
            concurrent.push(await paths.gatewayStream());
          } catch {
            errors += 1;
          }
        }
      }),
    );
    const elapsedS = (performance.now() - began) / 1000;
    const total = {
      directJson: totals('directJson'),
      directStream: totals('directStream'),
      clientApi: totals('clientApi'),
      clientApiStream: totals('clientApiStream'),
      gatewayJson: totals('gatewayJson'),
      gatewayStream: totals('gatewayStream'),
    };
    const timeToFirstToken = { direct: ttfts('directStream'), gatewayStream: ttfts('gatewayStream') };
    const difference = (left: number, right: number) => Math.round((left - right) * 10) / 10;
    return {
      total,
      timeToFirstToken,
      addedP50Ms: {
        gatewayJsonOverClientApi: difference(total.gatewayJson.p50, total.clientApi.p50),
        gatewayJsonOverDirect: difference(total.gatewayJson.p50, total.directJson.p50),
        gatewayStreamOverClientApiStream: difference(total.gatewayStream.p50, total.clientApiStream.p50),
        gatewayStreamOverDirectStream: difference(total.gatewayStream.p50, total.directStream.p50),
        gatewayStreamTtftOverDirectTtft: difference(
          timeToFirstToken.gatewayStream.p50,
          timeToFirstToken.direct.p50,
        ),
      },
      concurrent: {
        concurrency: sizes.concurrency,
        durationS: Math.round(elapsedS * 10) / 10,
        calls: concurrent.length,
        errors,
        callsPerS: Math.round((concurrent.length / elapsedS) * 10) / 10,
        timeToFirstToken: summarize(concurrent.map((sample) => sample.ttftMs)),
        total: summarize(concurrent.map((sample) => sample.totalMs)),
      },
    };
  } finally {
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export function renderGatewayTable(results: GatewayBenchResults): string {
  const row = (label: string, summary: Summary) =>
    `| ${label.padEnd(36)} | ${String(summary.p50).padStart(7)} | ${String(summary.p99).padStart(7)} |`;
  return [
    `| ${'gateway path (ms)'.padEnd(36)} | ${'p50'.padStart(7)} | ${'p99'.padStart(7)} |`,
    `| ${'-'.repeat(36)} | ${'-'.repeat(6)}: | ${'-'.repeat(6)}: |`,
    row('direct call (JSON), whole', results.total.directJson),
    row('direct streamed call, whole', results.total.directStream),
    row('direct streamed call, first token', results.timeToFirstToken.direct),
    row('client API, whole', results.total.clientApi),
    row('client API, streamed attempt, whole', results.total.clientApiStream),
    row('gateway JSON, whole', results.total.gatewayJson),
    row('gateway stream, whole', results.total.gatewayStream),
    row('gateway stream, first token', results.timeToFirstToken.gatewayStream),
    row(
      `${results.concurrent.concurrency} streams at once, first token`,
      results.concurrent.timeToFirstToken,
    ),
    row(`${results.concurrent.concurrency} streams at once, whole`, results.concurrent.total),
    '',
    `added p50: gateway JSON over the client API ${results.addedP50Ms.gatewayJsonOverClientApi} ms, over a direct ` +
      `call ${results.addedP50Ms.gatewayJsonOverDirect} ms; gateway stream over the client API's streamed attempt ` +
      `${results.addedP50Ms.gatewayStreamOverClientApiStream} ms, over a direct stream ` +
      `${results.addedP50Ms.gatewayStreamOverDirectStream} ms; first token over a direct stream's ` +
      `${results.addedP50Ms.gatewayStreamTtftOverDirectTtft} ms`,
    `${results.concurrent.concurrency} concurrent streams: ${results.concurrent.callsPerS} calls/s ` +
      `(${results.concurrent.calls} calls, ${results.concurrent.errors} errors in ${results.concurrent.durationS} s)`,
  ].join('\n');
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
  try {
    const results = await worker.runUntil(
      measureGateway(
        {
          switchyard,
          config,
          route: MODE_ROUTE['50ms'],
          direct: {
            baseURL: fake.openaiBaseURL,
            apiKey: BENCH_KEYS.BENCH_FAKE_KEY,
            model: BENCH_MODELS.healthy,
          },
        },
        sizes,
        log,
      ),
    );
    const outFile = path.join(__dirname, 'results', values.quick ? 'gateway-quick.tmp.json' : 'gateway.json');
    mkdirSync(path.dirname(outFile), { recursive: true });
    writeFileSync(outFile, `${JSON.stringify({ sizes, results }, null, 2)}\n`);
    process.stdout.write(`${renderGatewayTable(results)}\n`);
    log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
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
