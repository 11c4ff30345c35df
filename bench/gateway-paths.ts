// The paths the gateway bench times: a direct call, the client API, and each gateway surface (Chat Completions,
// Anthropic Messages, Responses), JSON and streamed, each with the surface's own official SDK. Bench side.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { GenerationRequestInput, SwitchyardClient } from 'switchyard';

/** One sample: the whole call, and for a stream the time to its first piece of text, in milliseconds. */
export interface PathTiming {
  /** NaN for a path that is not streamed to the caller. */
  readonly ttftMs: number;
  readonly totalMs: number;
}

export type BenchPath = () => Promise<PathTiming>;

/** The gateway's surfaces the bench measures, in the order it reports them. */
export const GATEWAY_SURFACES = ['chat', 'messages', 'responses'] as const;
export type GatewaySurface = (typeof GATEWAY_SURFACES)[number];

/** What each surface is called in the report. */
export const SURFACE_LABELS: Readonly<Record<GatewaySurface, string>> = {
  chat: 'Chat Completions',
  messages: 'Anthropic Messages',
  responses: 'Responses',
};

export interface GatewayPathsSetup {
  readonly switchyard: SwitchyardClient;
  /** The route every path calls. */
  readonly route: string;
  /** The first target's provider as the direct path calls it. */
  readonly direct: { readonly baseURL: string; readonly apiKey: string; readonly model: string };
  readonly gatewayUrl: string;
  readonly gatewayKey: string;
}

/** Long enough that the answer streams in several pieces. */
const BENCH_PROMPT = 'Say hello in twelve words: one two three four five six seven eight nine ten eleven';
const MAX_TOKENS = 64;

/** Times a stream to its first piece of text (as `isText` tells) and to its end. */
async function timeStream<Event>(
  stream: AsyncIterable<Event>,
  began: number,
  isText: (event: Event) => boolean,
): Promise<PathTiming> {
  let ttftMs = Number.NaN;
  for await (const event of stream) {
    if (Number.isNaN(ttftMs) && isText(event)) ttftMs = performance.now() - began;
  }
  return { ttftMs, totalMs: performance.now() - began };
}

/** Times a call whose answer arrives whole. */
async function timeWhole(call: () => Promise<unknown>): Promise<PathTiming> {
  const began = performance.now();
  await call();
  return { ttftMs: Number.NaN, totalMs: performance.now() - began };
}

/**
 * Every path, keyed by name: `direct*` and `clientApi*` are the floors, `<surface>Json` and `<surface>Stream` go
 * through the gateway. One HTTP client per path family, no SDK retries, so a sample is one call.
 */
export function gatewayPaths(setup: GatewayPathsSetup) {
  const direct = new OpenAI({ apiKey: setup.direct.apiKey, baseURL: setup.direct.baseURL, maxRetries: 0 });
  const openai = new OpenAI({ apiKey: setup.gatewayKey, baseURL: `${setup.gatewayUrl}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: setup.gatewayKey, baseURL: setup.gatewayUrl, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: BENCH_PROMPT }];
  const request: GenerationRequestInput = { messages, maxOutputTokens: MAX_TOKENS };
  const model = setup.route;
  const chatText = (chunk: OpenAI.Chat.Completions.ChatCompletionChunk) =>
    Boolean(chunk.choices[0]?.delta?.content);

  return {
    directJson: () =>
      timeWhole(() =>
        direct.chat.completions.create({
          model: setup.direct.model,
          messages,
          max_completion_tokens: MAX_TOKENS,
        }),
      ),
    directStream: async () => {
      const began = performance.now();
      const stream = await direct.chat.completions.create({
        model: setup.direct.model,
        messages,
        max_completion_tokens: MAX_TOKENS,
        stream: true,
        stream_options: { include_usage: true },
      });
      return timeStream(stream, began, chatText);
    },
    clientApi: () => timeWhole(() => setup.switchyard.generate({ route: setup.route, request })),
    // The attempt streams from the provider; the caller gets the answer whole.
    clientApiStream: () =>
      timeWhole(() => setup.switchyard.generate({ route: setup.route, request, stream: true })),
    chatJson: () =>
      timeWhole(() => openai.chat.completions.create({ model, messages, max_tokens: MAX_TOKENS })),
    chatStream: async () => {
      const began = performance.now();
      const stream = await openai.chat.completions.create({
        model,
        messages,
        max_tokens: MAX_TOKENS,
        stream: true,
      });
      return timeStream(stream, began, chatText);
    },
    messagesJson: () =>
      timeWhole(() => anthropic.messages.create({ model, messages, max_tokens: MAX_TOKENS })),
    messagesStream: async () => {
      const began = performance.now();
      const stream = await anthropic.messages.create({
        model,
        messages,
        max_tokens: MAX_TOKENS,
        stream: true,
      });
      return timeStream(
        stream,
        began,
        (event) => event.type === 'content_block_delta' && event.delta.type === 'text_delta',
      );
    },
    responsesJson: () =>
      timeWhole(() => openai.responses.create({ model, input: BENCH_PROMPT, max_output_tokens: MAX_TOKENS })),
    responsesStream: async () => {
      const began = performance.now();
      const stream = await openai.responses.create({
        model,
        input: BENCH_PROMPT,
        max_output_tokens: MAX_TOKENS,
        stream: true,
      });
      return timeStream(stream, began, (event) => event.type === 'response.output_text.delta');
    },
  } satisfies Record<string, BenchPath>;
}

export type GatewayPathName = keyof ReturnType<typeof gatewayPaths>;

/** A peer proxy speaking Chat Completions (LiteLLM's), on the same fake deployment as the direct path. */
export interface PeerEndpoint {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly model: string;
}

/** The peer proxy's JSON and streamed paths, the same request as the Chat Completions surface's. */
export function peerPaths(peer: PeerEndpoint) {
  const client = new OpenAI({ apiKey: peer.apiKey, baseURL: peer.baseURL, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: BENCH_PROMPT }];
  return {
    peerJson: () =>
      timeWhole(() =>
        client.chat.completions.create({ model: peer.model, messages, max_completion_tokens: MAX_TOKENS }),
      ),
    peerStream: async () => {
      const began = performance.now();
      const stream = await client.chat.completions.create({
        model: peer.model,
        messages,
        max_completion_tokens: MAX_TOKENS,
        stream: true,
      });
      return timeStream(stream, began, (chunk) => Boolean(chunk.choices[0]?.delta?.content));
    },
  } satisfies Record<string, BenchPath>;
}
