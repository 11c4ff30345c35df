// `npm run screenshots:trace`: the trace of a gateway call that fails over once, shown in Arize Phoenix (a tracing
// backend with a web UI that installs from PyPI and runs offline), saved as docs/images/trace-failover.png, and
// printed as an indented span tree for docs/traces.md. Script side; not run in CI.
//
// Needs Debian's Chromium (`apt-get install chromium`) and Phoenix in a virtual environment outside the repository:
//   python3 -m venv /tmp/switchyard-phoenix && /tmp/switchyard-phoenix/bin/pip install arize-phoenix==20.26.1
// The script starts `phoenix serve` itself on free ports of 127.0.0.1 with a throwaway working directory
// (PHOENIX_BIN names another install; CHROMIUM_PATH another browser), exports over OTLP/HTTP protobuf to it, and
// stops it at the end. `--no-picture` prints the span tree alone and needs neither Phoenix nor Chromium.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SpanKind } from '@opentelemetry/api';
import { Client, Connection } from '@temporalio/client';
import OpenAI from 'openai';
import { chromium, type Locator, type Page } from 'playwright-core';
import { SwitchyardClient } from '../src/client/switchyard-client';
import { parseConfig } from '../src/config/load-config';
import { startDevServer } from '../src/engine';
import { startGateway } from '../src/gateway/gateway-server';
import { KeyStore } from '../src/gateway/key-store';
import { installWorkerRuntime } from '../src/metrics/worker-runtime';
import { installTracing } from '../src/tracing/install-tracing';
import { tracingClientInterceptors } from '../src/tracing/worker-tracing';
import { demoConfigInput, DemoModels, FAKE_PROVIDER_KEYS } from './demo/demo-config';
import { startFake, startWorkerAndClient } from './demo/demo-stack';
import { heading, indented, say, withProgress } from './demo/progress';
import { startPhoenix, type Phoenix } from './trace/phoenix-server';
import { KeepingSpanExporter, spanTree } from './trace/span-tree';

const PHOENIX = process.env.PHOENIX_BIN ?? '/tmp/switchyard-phoenix/bin/phoenix';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PICTURE = path.join(__dirname, '..', 'docs', 'images', 'trace-failover.png');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];

async function until<T>(what: string, read: () => T | undefined): Promise<T> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Routes the call with tracing on and prints its trace; resolves to the trace id. */
async function traceFailover(phoenix: Phoenix | undefined, directory: string): Promise<string> {
  // The standard settings, as an operator would set them; the OTLP exporter reads its endpoint from them.
  Object.assign(process.env, {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_SERVICE_NAME: 'switchyard',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...(phoenix ? { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url } : {}),
  });
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  const exporter = new KeepingSpanExporter(phoenix ? new OTLPTraceExporter() : undefined);
  const tracing = installTracing({ serviceName: 'switchyard', spanExporter: exporter })!;
  installWorkerRuntime({ metrics: { port: false }, logLevel: 'ERROR' });

  const server = await withProgress('temporal server start-dev', startDevServer({ headless: true }));
  const fake = await startFake();
  const config = parseConfig(demoConfigInput(fake));
  // The worker picks up the installed tracer: its interceptors, and the workflow bundle built with tracing.
  const stack = await startWorkerAndClient(server.address, config, { ...process.env, ...FAKE_PROVIDER_KEYS });
  // The gateway's client carries the request's span into the workflow it starts.
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, interceptors: { workflow: tracingClientInterceptors() } });
  const keys = new KeyStore({ file: path.join(directory, 'gateway-keys.json') });
  const gateway = await startGateway({
    switchyard: new SwitchyardClient({ client, config }),
    config,
    keys,
    port: 0,
  });
  try {
    heading('A gateway call that fails over once');
    fake.script(DemoModels.primary, { kind: 'error', error: 'service_unavailable' });
    fake.script(DemoModels.secondary, {
      kind: 'answer',
      text: 'Hello!',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
    const openai = new OpenAI({ apiKey: keys.create({ routes: ['*'] }).key, baseURL: `${gateway.url}/v1` });
    await stack.worker.runUntil(
      withProgress(
        'POST /v1/chat/completions, model "support"',
        openai.chat.completions.create(
          { model: 'support', messages: [{ role: 'user', content: 'Say hello in one sentence.' }] },
          { maxRetries: 0 },
        ),
      ),
    );
    await tracing.forceFlush();
    const traceId = await until(
      'the gateway span',
      () => exporter.kept.find((span) => span.kind === SpanKind.SERVER)?.spanContext().traceId,
    );
    const inTrace = () => exporter.kept.filter((span) => span.spanContext().traceId === traceId);
    // The breaker's handler span ends a moment after the call; wait for it so the tree is whole.
    await until('the breaker span', () =>
      inTrace().some((span) => /^Handle(Update|Signal):/.test(span.name)) ? true : undefined,
    );
    await tracing.forceFlush();
    const spans = inTrace();
    if (!spans.some((span) => span.attributes['switchyard.outcome'] === 'failed')) {
      throw new Error('the trace has no failed attempt: the call did not fail over');
    }
    heading(`Trace ${traceId}`);
    indented(spanTree(spans));
    return traceId;
  } finally {
    await gateway.close();
    await connection.close();
    await stack.close();
    await fake.close();
    await server.stop();
    await tracing.shutdown();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'no-picture': { type: 'boolean' } } });
  const picture = !values['no-picture'];
  if (picture && !existsSync(PHOENIX)) {
    throw new Error(
      `no Phoenix at ${PHOENIX}: see the install step at the top of this script (or set PHOENIX_BIN)`,
    );
  }
  if (picture && !existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  }
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-trace-'));
  let phoenix: Phoenix | undefined;
  try {
    heading('Starting Phoenix, the dev server, the fake provider, a worker and the gateway');
    if (picture) phoenix = await startPhoenix(PHOENIX, path.join(directory, 'phoenix'));
    const traceId = await traceFailover(phoenix, directory);
    if (phoenix) await takePicture(phoenix.url, traceId, directory);
  } finally {
    await phoenix?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Drags a resize handle `dx` pixels sideways. */
async function drag(page: Page, handle: Locator, dx: number): Promise<void> {
  const box = await handle.boundingBox();
  if (!box) throw new Error('resize handle not shown');
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y, { steps: 10 });
  await page.mouse.up();
}

/** Opens the trace in Phoenix's UI and saves the span tree with the failed attempt selected beside it. */
async function takePicture(phoenixUrl: string, traceId: string, directory: string): Promise<void> {
  heading('Taking the picture with headless Chromium');
  mkdirSync(path.dirname(PICTURE), { recursive: true });
  const browser = await chromium.launchPersistentContext(path.join(directory, 'chromium'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1600, height: 1000 },
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    // Phoenix's redirect finds the trace's project by the trace id alone.
    await page.goto(`${phoenixUrl}/redirects/traces/${traceId}`, { waitUntil: 'load' });
    const failedAttempt = page.getByText('StartActivity:attemptTarget', { exact: true }).first();
    await failedAttempt.waitFor({ timeout: 60_000 });
    await failedAttempt.click();
    await page.getByRole('tab', { name: 'Attributes' }).click();
    // Widen the drawer to its maximum and the tree within it, so no span name is cut short.
    await drag(page, page.getByRole('separator', { name: 'Resize drawer' }), -400);
    await drag(page, page.locator('[role="separator"][aria-controls="trace-tree"]'), 240);
    await page.waitForTimeout(2_000);
    await page.getByRole('dialog').screenshot({ path: PICTURE });
    say(`  wrote docs/images/${path.basename(PICTURE)}`);
  } finally {
    await browser.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `trace screenshot failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
