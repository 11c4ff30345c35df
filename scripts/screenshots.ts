// `npm run screenshots`: pictures of the Temporal Web UI for the docs (docs/images/), taken with Debian's headless Chromium.
// Needs `apt-get install chromium` (never a downloaded browser); writes docs/images/*.png. Not run in CI.
import { ROUTED_CALL_WORKFLOW_TYPE } from '../src/workflows/definitions';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { callsWithFallbackQuery } from '../src/client/visibility-queries';
import { startGateway } from '../src/gateway/gateway-server';
import { KeyStore } from '../src/gateway/key-store';
import { parseConfig } from '../src/config/load-config';
import { installWorkerRuntime } from '../src/metrics/worker-runtime';
import type { RoutingRecord } from '../src/routing/routing-record';
import { SWITCHYARD_SEARCH_ATTRIBUTES } from '../src/workflows/search-attributes';
import { demoConfigInput, DemoModels, FAKE_PROVIDER_KEYS } from './demo/demo-config';
import {
  queryLink,
  startFake,
  startServerWithProgress,
  startWorkerAndClient,
  workflowLink,
  type WorkerAndClient,
} from './demo/demo-stack';
import { heading, say, withProgress } from './demo/progress';
import { prompt } from './demo/tour';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT = path.join(__dirname, '..', 'docs', 'images');
const VIEWPORT = { width: 1440, height: 1280 };

/** Flags for a quiet, self-contained headless run: no GPU, no QUIC, nothing fetched in the background. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Calls that give the pictures something to show: two failovers, a failure, and plain answers. */
async function routeCalls(
  stack: WorkerAndClient,
  fake: Awaited<ReturnType<typeof startFake>>,
): Promise<RoutingRecord> {
  const { switchyard } = stack;
  fake.script(DemoModels.primary, { kind: 'error', error: 'rate_limited', retryAfterSeconds: 20 });
  fake.script(DemoModels.secondary, {
    kind: 'answer',
    text: 'Hello!',
    usage: { inputTokens: 12, outputTokens: 7 },
  });
  const { record } = await withProgress(
    'a call that fails over from a 429',
    switchyard.generate({ route: 'support', ...prompt('Say hello in one sentence.') }),
  );
  await withProgress(
    'two calls the first target answers',
    Promise.all(
      [1, 2].map((n) => switchyard.generate({ route: 'support', ...prompt(`Ticket ${n}: summarise it.`) })),
    ),
  );
  fake.script(DemoModels.primary, { kind: 'error', error: 'server_error' });
  await withProgress(
    'a call that fails over from a 500',
    switchyard.generate({ route: 'support', ...prompt('Translate it.') }),
  );
  fake.script(DemoModels.primary, { kind: 'error', error: 'server_error' });
  fake.script(DemoModels.secondary, { kind: 'error', error: 'overloaded' });
  await withProgress(
    'a call both targets fail',
    switchyard.generate({ route: 'support', ...prompt('Classify it.') }).catch(() => undefined),
  );
  return record;
}

/**
 * A streamed call through the gateway that failed over before its first piece: the first target's stream broke
 * at once, the second one's streamed to the caller. Resolves to its workflow id.
 */
async function gatewayStreamedCall(
  stack: WorkerAndClient,
  fake: Awaited<ReturnType<typeof startFake>>,
  config: Parameters<typeof startGateway>[0]['config'],
  directory: string,
): Promise<string> {
  const keys = new KeyStore({ file: path.join(directory, 'gateway-keys.json') });
  const { key } = keys.create({ routes: ['*'] });
  const gateway = await startGateway({ switchyard: stack.switchyard, config, keys, port: 0 });
  try {
    fake.script(DemoModels.primary, { kind: 'stream_cut', afterEvents: 0 });
    fake.script(DemoModels.secondary, { kind: 'answer', chunkDelayMs: 80 });
    const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const { data: stream, response } = await withProgress(
      'a streamed call through the gateway that fails over before its first piece',
      openai.chat.completions
        .create({
          model: 'support',
          messages: [{ role: 'user', content: 'Stream a short greeting to the ticket queue, word by word.' }],
          stream: true,
        })
        .withResponse(),
    );
    for await (const _chunk of stream) {
      // Read to the end: the call completes with the stream.
    }
    return response.headers.get('x-switchyard-workflow-id')!;
  } finally {
    await gateway.close();
  }
}

async function gatewayPicture(page: Page, uiUrl: string | undefined, workflowId: string): Promise<void> {
  await page.goto(workflowLink(uiUrl, workflowId), { waitUntil: 'networkidle' });
  await settle(page, '#2 anthropic/claude-haiku-4-5');
  await page.getByText('Timeline', { exact: true }).last().scrollIntoViewIfNeeded();
  await save(page, 'gateway-streamed-call.png', 1_070);
}

async function settle(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: false }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
  // The UI renders in steps (timeline, counts); give it a moment after the text shows.
  await page.waitForTimeout(1_500);
}

/** Saves the top `height` pixels of the page: each picture is cropped to what it shows. */
async function save(page: Page, file: string, height: number): Promise<void> {
  const width = page.viewportSize()?.width ?? VIEWPORT.width;
  await page.screenshot({ path: path.join(OUTPUT, file), clip: { x: 0, y: 0, width, height } });
  say(`  wrote docs/images/${file}`);
}

/** Shows Switchyard's search attributes as columns of the workflow list (kept in the browser profile). */
async function showSearchAttributeColumns(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Configure Columns' }).click();
  for (const column of ['Run ID', 'Type', 'Start', 'End']) {
    await page.getByRole('button', { name: `Remove ${column} column` }).click();
  }
  for (const attribute of SWITCHYARD_SEARCH_ATTRIBUTES) {
    await page.getByRole('button', { name: `Add ${attribute.name} column` }).click();
  }
  await page.getByRole('button', { name: 'Close Workflows Table configuration' }).click();
}

async function takePictures(
  browser: BrowserContext,
  uiUrl: string | undefined,
  featured: RoutingRecord,
): Promise<void> {
  const page = browser.pages()[0] ?? (await browser.newPage());
  const call = workflowLink(uiUrl, featured.workflowId);

  await page.goto(call, { waitUntil: 'networkidle' });
  await settle(page, '#2 anthropic/claude-haiku-4-5');
  await page.getByText('Timeline', { exact: true }).last().scrollIntoViewIfNeeded();
  await save(page, 'routed-call-attempts.png', 1_070);

  await page.getByText('User Metadata', { exact: true }).first().click();
  // The UI renders a workflow's Markdown in sandboxed frames.
  await page
    .locator('iframe')
    .last()
    .contentFrame()
    .getByText('rate_limited')
    .first()
    .waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1_000);
  await save(page, 'routed-call-details.png', 820);

  // The list is wide with every Switchyard column in it.
  await page.setViewportSize({ width: 1_920, height: 800 });
  await page.goto(queryLink(uiUrl, callsWithFallbackQuery('support')), { waitUntil: 'networkidle' });
  await settle(page, ROUTED_CALL_WORKFLOW_TYPE);
  await showSearchAttributeColumns(page);
  await settle(page, 'anthropic/claude-haiku-4-5');
  await save(page, 'calls-with-fallback.png', 440);
}

async function main(): Promise<void> {
  // `--only gateway` takes the gateway's picture alone.
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const gatewayOnly = values.only === 'gateway';
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  }
  mkdirSync(OUTPUT, { recursive: true });
  installWorkerRuntime({ metrics: { port: false }, logLevel: 'ERROR' });

  heading('Starting the dev server, the fake provider and a worker');
  const server = await startServerWithProgress({});
  const fake = await startFake();
  const config = parseConfig(demoConfigInput(fake));
  const stack = await startWorkerAndClient(server.address, config, { ...process.env, ...FAKE_PROVIDER_KEYS });
  const profile = mkdtempSync(path.join(tmpdir(), 'switchyard-chromium-'));
  try {
    // The worker keeps running while the pictures are taken: it answers the UI's query for current details.
    await stack.worker.runUntil(
      (async () => {
        heading('Routing a few calls to have something to show');
        const featured = gatewayOnly ? undefined : await routeCalls(stack, fake);
        const streamed = await gatewayStreamedCall(stack, fake, config, profile);
        heading('Taking the pictures with headless Chromium');
        const browser = await chromium.launchPersistentContext(profile, {
          executablePath: CHROMIUM,
          headless: true,
          args: CHROMIUM_ARGS,
          viewport: VIEWPORT,
        });
        try {
          if (featured) await takePictures(browser, server.uiUrl, featured);
          await gatewayPicture(browser.pages()[0] ?? (await browser.newPage()), server.uiUrl, streamed);
        } finally {
          await browser.close();
        }
      })(),
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
    await stack.close();
    await fake.close();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`screenshots failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
