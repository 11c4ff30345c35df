// `npm run demo`: the main job on the embedded engine — a routed call fails over from a 429 to a second provider.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createProviderRegistry } from '../src/activities/provider-registry';
import { renderRoutingRecord } from '../src/cli/render-routing-record';
import { SwitchyardClient } from '../src/client/switchyard-client';
import { parseConfig } from '../src/config/load-config';
import { startDevServer, type DevServer } from '../src/engine';
import { startFakeProvider, type FakeProvider } from '../src/fake-provider';
import { createSwitchyardWorker } from '../src/worker';

const keep = process.argv.includes('--keep');
const DEMO_KEYS = { DEMO_OPENAI_KEY: 'demo-openai-key', DEMO_ANTHROPIC_KEY: 'demo-anthropic-key' };

function step(text: string): void {
  process.stdout.write(`\n▶ ${text}\n`);
}

async function timed<T>(label: string, work: Promise<T>): Promise<T> {
  const started = Date.now();
  process.stdout.write(`  ${label} …`);
  const ticker = setInterval(() => process.stdout.write('.'), 1_000);
  try {
    const result = await work;
    process.stdout.write(` done (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    return result;
  } finally {
    clearInterval(ticker);
  }
}

function demoConfig(fake: FakeProvider) {
  return parseConfig({
    providers: {
      openai: {
        kind: 'openai',
        apiKeyEnv: 'DEMO_OPENAI_KEY',
        baseURL: fake.openaiBaseURL,
        models: {
          'gpt-4o-mini': {
            inputUsdPerMillion: 0.15,
            cachedInputUsdPerMillion: 0.075,
            outputUsdPerMillion: 0.6,
          },
        },
      },
      anthropic: {
        kind: 'anthropic',
        apiKeyEnv: 'DEMO_ANTHROPIC_KEY',
        baseURL: fake.anthropicBaseURL,
        models: {
          'claude-haiku-4-5': {
            inputUsdPerMillion: 1,
            cachedInputUsdPerMillion: 0.1,
            outputUsdPerMillion: 5,
          },
        },
      },
    },
    routes: {
      support: {
        targets: [
          { provider: 'openai', model: 'gpt-4o-mini', timeoutMs: 10_000 },
          { provider: 'anthropic', model: 'claude-haiku-4-5', timeoutMs: 10_000 },
        ],
        deadlineMs: 60_000,
      },
    },
    defaultRoute: 'support',
  });
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  let server: DevServer | undefined;
  let fake: FakeProvider | undefined;
  const shutdown = async () => {
    await fake?.close();
    await server?.stop();
  };
  process.once('SIGINT', () => void shutdown().then(() => process.exit(130)));
  try {
    step('Starting the embedded Temporal dev server (installs the Temporal CLI on first run)');
    server = await timed('temporal server start-dev', startDevServer({ headless: false }));
    process.stdout.write(`  Temporal at ${server.address}, Web UI at ${server.uiUrl}\n`);

    step('Starting the fake provider (speaks the OpenAI and Anthropic wire formats)');
    fake = await startFakeProvider();
    process.stdout.write(`  listening on ${fake.url}\n`);
    const config = demoConfig(fake);

    step('Starting a Switchyard worker');
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const worker = await timed(
      'bundling workflows',
      createSwitchyardWorker({
        config,
        connection: nativeConnection,
        providers: createProviderRegistry(config, DEMO_KEYS),
      }),
    );
    const connection = await Connection.connect({ address: server.address });
    const switchyard = new SwitchyardClient({ client: new Client({ connection }), config });

    step(
      'Routing a call on route "support": openai/gpt-4o-mini answers 429, anthropic/claude-haiku-4-5 answers',
    );
    fake.script('gpt-4o-mini', { kind: 'error', error: 'rate_limited', retryAfterSeconds: 20 });
    fake.script('claude-haiku-4-5', {
      kind: 'answer',
      text: 'Hello from the second target!',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
    const run = async () => {
      const { answer, record } = await timed(
        'routed call',
        switchyard.generate({
          route: 'support',
          request: {
            messages: [{ role: 'user', content: 'Say hello in one sentence.' }],
            maxOutputTokens: 100,
          },
        }),
      );
      process.stdout.write(`\n  answer: ${answer.text}\n\n${renderRoutingRecord(record)}\n`);
      process.stdout.write(
        `\n  Web UI: ${server!.uiUrl}/namespaces/default/workflows/${record.workflowId}\n`,
      );
      if (keep) {
        process.stdout.write(
          '\n  --keep: the dev server, fake provider and worker stay up. Ctrl-C stops everything.\n',
        );
        await new Promise<void>((resolve) => process.once('SIGINT', resolve));
      }
    };
    await worker.runUntil(run());
    await connection.close();
    await nativeConnection.close();
  } finally {
    await shutdown();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
