// The official `openai` Python client chains responses by previous_response_id through the gateway: a function
// tool over three turns, `responses.create` and the `responses.stream` helper, each response read back.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON_OPENAI_VERSION } from '../../scripts/python-clients';
import type { FakeScenario } from '../../src/fake-provider/scenario';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness';
import { pythonClients, pythonTest } from '../support/python-clients';

const root = path.join(__dirname, '../..');
const clients = pythonClients();
/** The virtual environment's python; its tests are skipped, with the reason printed, where there is none. */
const python = 'python' in clients ? clients.python : '';

let harness: GatewayHarness;
beforeAll(async () => {
  if (!('python' in clients)) return;
  harness = await startGatewayHarness();
});
beforeEach(() => harness?.fake.reset());
afterAll(async () => harness?.close());

interface Turn {
  readonly id: string;
  readonly status: string;
  readonly previous_response_id: string | null;
  readonly output: { type: string; call_id?: string; name?: string; arguments?: string; text?: string }[];
  readonly events?: string[];
  readonly retrieved_differs_in: string[];
}

interface Seen {
  readonly version: string;
  readonly create: Turn[];
  readonly stream: Turn[];
}

const FINAL = 'Paris is sunny, Lyon rainy, Nice clear.';

/** The three turns of one loop, in the order the client's calls meet them. */
function loopScript(chunkDelayMs: number): FakeScenario[] {
  return [
    {
      kind: 'answer',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Lyon' } },
      ],
      chunkDelayMs,
    },
    { kind: 'answer', toolCalls: [{ name: 'get_weather', arguments: { city: 'Nice' } }], chunkDelayMs },
    { kind: 'answer', text: FINAL, chunkDelayMs },
  ];
}

pythonTest('gateway')(
  'a function tool over three turns chained by previous_response_id, created and streamed; each turn reads back',
  async () => {
    harness.fake.script('gpt-primary', [...loopScript(0), ...loopScript(5)]);
    const seen = await harness.withGateway(async ({ gateway, key }) => {
      const run = await promisify(execFile)(
        python,
        [path.join(root, 'test/support/gateway_openai_responses_chain.py')],
        {
          env: {
            ...process.env,
            GATEWAY_BASE_URL: `${gateway.url}/v1`,
            GATEWAY_KEY: key,
            GATEWAY_ROUTE: 'support',
          },
        },
      ).catch((error: { code?: number; stderr?: string }) => {
        throw new Error(`the openai Python client failed (exit ${error.code}): ${error.stderr}`);
      });
      return JSON.parse(run.stdout) as Seen;
    });
    expect(seen.version).toBe(PYTHON_OPENAI_VERSION);
    for (const turns of [seen.create, seen.stream]) {
      expect(turns.map((turn) => turn.status)).toEqual(['completed', 'completed', 'completed']);
      expect(turns.map((turn) => turn.output.map((item) => item.type))).toEqual([
        ['function_call', 'function_call'],
        ['function_call'],
        ['message'],
      ]);
      expect(turns[2]!.output[0]!.text).toBe(FINAL);
      // Stored, each names its workflow, and each names the one before.
      expect(turns.every((turn) => turn.id.startsWith('resp_s'))).toBe(true);
      expect(turns.map((turn) => turn.previous_response_id)).toEqual([null, turns[0]!.id, turns[1]!.id]);
    }
    // A response answered whole reads back exactly; a streamed one in all but its times, which a stream takes
    // from the gateway's clock as it starts, before the call has a record.
    for (const turn of seen.create) expect(turn.retrieved_differs_in).toEqual([]);
    for (const turn of seen.stream) {
      expect(
        turn.retrieved_differs_in.filter((key) => !['created_at', 'completed_at'].includes(key)),
      ).toEqual([]);
      expect(turn.events![0]).toBe('response.created');
      expect(turn.events!.at(-1)).toBe('response.completed');
    }

    // The provider got the whole conversation each turn, though the client sent only the tool's outputs.
    const requests = harness.fake
      .requestsFor('gpt-primary')
      .map((request) => request.body as { messages: Record<string, unknown>[] });
    expect(requests).toHaveLength(6);
    for (const [loop, turns] of [
      [0, seen.create],
      [3, seen.stream],
    ] as const) {
      const [paris, lyon, nice] = turns.flatMap((turn) =>
        turn.output.filter((item) => item.type === 'function_call').map((item) => item.call_id!),
      );
      expect(
        requests[loop + 2]!.messages.map((message) => [message.role, message.tool_call_id ?? null]),
      ).toEqual([
        ['system', null],
        ['user', null],
        ['assistant', null],
        ['tool', paris],
        ['tool', lyon],
        ['assistant', null],
        ['tool', nice],
      ]);
      expect(requests[loop + 2]!.messages.slice(3).map((message) => message.content)).toEqual([
        '18 degrees and sunny',
        '12 degrees and raining',
        null,
        '22 degrees and clear',
      ]);
    }
  },
);
