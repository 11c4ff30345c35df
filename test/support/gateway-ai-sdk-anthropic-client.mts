// The Vercel AI SDK (`ai` + `@ai-sdk/anthropic`) runs multi-step tool loops through a gateway; prints what it saw as JSON.
// An ES module (both packages are ESM only), run by test/temporal/gateway-ai-sdk-anthropic.test.ts with
// `node --import tsx` and GATEWAY_URL, GATEWAY_KEY set. Node side.
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';

const anthropic = createAnthropic({
  baseURL: `${process.env.GATEWAY_URL}/v1`,
  apiKey: process.env.GATEWAY_KEY,
});

const cities: string[] = [];
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
      cities.push(city);
      return `18 degrees and sunny in ${city}`;
    },
  }),
};

/** One multi-step run: the model calls the tool until it answers; each step is one gateway call. */
async function run(options: { readonly thinking: boolean }) {
  const result = await generateText({
    model: anthropic('reverse'),
    maxRetries: 0,
    maxOutputTokens: 2048,
    tools,
    stopWhen: stepCountIs(5),
    prompt: 'What is the weather in Paris and in Lyon?',
    ...(options.thinking
      ? { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } } }
      : {}),
  });
  return {
    text: result.text,
    steps: result.steps.map((step) => ({
      finishReason: step.finishReason,
      toolCalls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
      reasoning: step.reasoningText ?? null,
    })),
  };
}

const plain = await run({ thinking: false });
const thinking = await run({ thinking: true });
process.stdout.write(JSON.stringify({ plain, thinking, cities }));
