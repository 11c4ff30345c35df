// The gateway with the official `openai` Python client, from the project's virtual environment (npm run
// python:install): an answer, a stream with usage, an unknown route, and a failure after the first piece.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_OPENAI_VERSION } from '../../scripts/python-clients';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';

const root = path.join(__dirname, '../..');
const clients = pythonClients();

let harness: GatewayHarness;
beforeAll(async () => {
  if ('python' in clients) harness = await startGatewayHarness();
});
afterAll(async () => harness?.close());

pythonTest('gateway')(
  'the openai Python client: answer, stream, unknown route, mid-stream error',
  async () => {
    if (!('python' in clients)) throw new Error(clients.skipReason);
    const python = clients.python;
    harness.fake.script('gpt-primary', [
      { kind: 'answer', text: 'hello from python land' },
      { kind: 'answer', text: 'streamed to python in pieces', usage: { inputTokens: 4, outputTokens: 5 } },
      { kind: 'stream_cut', afterEvents: 3 },
    ]);
    const seen = await harness.withGateway(async ({ gateway, key }) => {
      const { stdout } = await promisify(execFile)(
        python,
        [path.join(root, 'test/support/gateway_openai_client.py')],
        {
          env: { ...process.env, GATEWAY_BASE_URL: `${gateway.url}/v1`, GATEWAY_KEY: key },
        },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    });
    expect(seen).toMatchObject({
      version: PYTHON_OPENAI_VERSION,
      answer: 'hello from python land',
      served_by: 'openai/gpt-primary',
      streamed: 'streamed to python in pieces',
      stream_usage: 9,
      unknown_route: { status: 404, code: 'model_not_found' },
      mid_stream_error: { code: 'StreamInterrupted' },
    });
    const { text } = seen.mid_stream_error as { text: string };
    expect(text.length).toBeGreaterThan(0);
    expect('Echo: alpha beta gamma delta epsilon zeta'.startsWith(text)).toBe(true);
    // The first target's text was cut, and no second target's text followed it.
    expect(harness.fake.counters('claude-primary').requests).toBe(0);
  },
);
