// The Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`) runs multi-step tool loops through a gateway's Chat
// Completions surface; prints what it saw as JSON. An ES module (both packages are ESM only), run by
// test/temporal/gateway-ai-sdk-openai.test.ts with `node --import tsx` and GATEWAY_URL, GATEWAY_KEY set. Node side.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';

const gateway = createOpenAICompatible({
  name: 'switchyard',
  baseURL: `${process.env.GATEWAY_URL}/v1`,
  apiKey: process.env.GATEWAY_KEY,
  includeUsage: true,
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

const options = {
  model: gateway.chatModel('support'),
  maxRetries: 0,
  maxOutputTokens: 256,
  tools,
  stopWhen: stepCountIs(3),
  prompt: 'What is the weather in Paris?',
};

interface StepView {
  readonly finishReason: string;
  readonly toolCalls: readonly { readonly toolName: string; readonly input: unknown }[];
  readonly reasoningText?: string;
}

function stepsOf(steps: readonly StepView[]) {
  return steps.map((step) => ({
    finishReason: step.finishReason,
    toolCalls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
    reasoning: step.reasoningText ?? null,
  }));
}

const generated = await generateText(options);
const streamed = streamText(options);
const streamedText = await streamed.text;
const streamedSteps = await streamed.steps;
const usage = await streamed.totalUsage;
process.stdout.write(
  JSON.stringify({
    generate: { text: generated.text, steps: stepsOf(generated.steps) },
    stream: { text: streamedText, steps: stepsOf(streamedSteps), inputTokens: usage.inputTokens ?? null },
    cities,
  }),
);
