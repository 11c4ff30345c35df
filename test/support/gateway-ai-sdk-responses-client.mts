// The Vercel AI SDK's own OpenAI provider (`@ai-sdk/openai`, whose default model speaks the Responses API) runs
// multi-step tool loops through a gateway's POST /v1/responses; prints what it saw as JSON. An ES module, run by
// test/temporal/gateway-responses-ai-sdk.test.ts with `node --import tsx` and GATEWAY_URL, GATEWAY_KEY, GATEWAY_ROUTE
// and CLIENT_MODE set. Node side.
//   plain      `openai(route)` as it comes (store on), generateText then streamText;
//   stateless  the same with store off: each step's earlier items go back whole, never as item references;
//   reasoning  `openai.responses(route)` with reasoning asked for and store off, so each step's reasoning comes back
//              with its encrypted content and the SDK sends it back inline, as it does against OpenAI.
import { randomBytes } from 'node:crypto';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';

const route = process.env.GATEWAY_ROUTE ?? 'support';
const mode = process.env.CLIENT_MODE ?? 'plain';

/** What the SDK sent: each request's path and the types of its input items (roles for messages). */
const sent: { path: string; input: string[]; store: unknown; include: unknown }[] = [];
const recordingFetch: typeof fetch = async (url, init) => {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
  const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
  sent.push({
    path: new URL(String(url)).pathname,
    input: input.map((item) => String(item.type ?? `message:${String(item.role)}`)),
    store: body.store ?? null,
    include: body.include ?? null,
  });
  return fetch(url, init);
};

const openai = createOpenAI({
  baseURL: `${process.env.GATEWAY_URL}/v1`,
  apiKey: process.env.GATEWAY_KEY,
  fetch: recordingFetch,
});

/** Each tool call's city and the reading made up for it: only a model that read the tool's output can repeat it. */
const calls: { city: string; reading: string }[] = [];
const tools = {
  get_weather: tool({
    description: 'The weather in a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    }),
    execute: async ({ city }) => {
      const reading = `reading-${randomBytes(4).toString('hex')}`;
      calls.push({ city, reading });
      return `18 degrees and sunny in ${city} (${reading})`;
    },
  }),
};

/** The provider options of each mode. */
const providerOptions = {
  plain: {},
  stateless: { providerOptions: { openai: { store: false } } },
  // `route` is no OpenAI model name, so the SDK is told it reasons.
  reasoning: { providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'low', store: false } } },
} as const;
if (!(mode in providerOptions)) throw new Error(`unknown CLIENT_MODE ${mode}: plain, stateless or reasoning`);

const options = {
  model: mode === 'reasoning' ? openai.responses(route) : openai(route),
  maxRetries: 0,
  maxOutputTokens: 2048,
  tools,
  stopWhen: stepCountIs(3),
  prompt: 'What is the weather in Paris?',
  ...providerOptions[mode as keyof typeof providerOptions],
};

interface StepView {
  readonly finishReason: string;
  readonly toolCalls: readonly { readonly toolName: string; readonly input: unknown }[];
  readonly reasoningText?: string;
  /** A step's reasoning parts carry the provider's data as `providerOptions`, to go back in the next step. */
  readonly reasoning: readonly {
    readonly providerOptions?: Record<string, Record<string, unknown>>;
    readonly providerMetadata?: Record<string, Record<string, unknown>>;
  }[];
  readonly response: { readonly id: string };
}

function stepsOf(steps: readonly StepView[]) {
  return steps.map((step) => ({
    finishReason: step.finishReason,
    toolCalls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
    reasoning: step.reasoningText ?? null,
    // The encrypted content the SDK keeps to send back (store off): another kind's origin prefix, else `opaque`.
    reasoningEncrypted: step.reasoning.map((part) => {
      const openaiData = part.providerOptions?.openai ?? part.providerMetadata?.openai;
      const encrypted = openaiData?.reasoningEncryptedContent;
      if (typeof encrypted !== 'string') return null;
      return encrypted.startsWith('switchyard:') ? encrypted.split(':').slice(0, 2).join(':') : 'opaque';
    }),
    responseId: step.response.id,
  }));
}

const generated = await generateText(options);
const streamed = streamText(options);
const streamedText = await streamed.text;
const streamedSteps = await streamed.steps;
const usage = await streamed.totalUsage;
process.stdout.write(
  JSON.stringify({
    generate: { text: generated.text, steps: stepsOf(generated.steps as unknown as StepView[]) },
    stream: {
      text: streamedText,
      steps: stepsOf(streamedSteps as unknown as StepView[]),
      inputTokens: usage.inputTokens ?? null,
    },
    calls,
    sent,
  }),
);
