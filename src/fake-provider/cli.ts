// `npm run fake-provider -- --port 4010 --latency-ms 50`: runs the fake provider standalone until Ctrl-C.
import { parseArgs } from 'node:util';
import { startFakeProvider } from './index';

const USAGE = `Usage: fake-provider [--port 4010] [--host 127.0.0.1] [--latency-ms 0] [--api-key KEY]

Serves POST /v1/chat/completions and POST /v1/responses (OpenAI) and POST /v1/messages (Anthropic) with
echo answers.
Send a scenario per request as JSON in the x-fake-scenario header, e.g.
  x-fake-scenario: {"kind":"error","error":"rate_limited","retryAfterSeconds":2}`;

function nonNegativeInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`--${name} must be a non-negative integer`);
  return number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'latency-ms': { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const provider = await startFakeProvider({
    port: nonNegativeInteger('port', values.port, 0),
    host: values.host,
    latencyMs: nonNegativeInteger('latency-ms', values['latency-ms'], 0),
    requiredApiKey: values['api-key'],
  });
  console.log(`fake provider listening on ${provider.url}`);
  console.log(`  OpenAI base URL:    ${provider.openaiBaseURL}`);
  console.log(`  Anthropic base URL: ${provider.anthropicBaseURL}`);
  const stop = () => {
    void provider.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  console.error(USAGE);
  process.exit(1);
});
