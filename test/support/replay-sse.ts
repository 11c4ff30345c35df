// Replays a recorded server-sent event stream through a provider SDK's own stream parser, as an adapter reads it.
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/streaming';
import { Stream as OpenAIStream } from 'openai/streaming';

/** One recorded server-sent event: its name, when the stream names its events, and its data. */
export interface RecordedEvent {
  readonly event?: string;
  /** The event's JSON data, or a literal data line such as OpenAI's `[DONE]`. */
  readonly data: unknown;
}

/** What the SDK's stream yielded before it ended, and what it threw instead of ending, if anything. */
export interface Replay {
  readonly items: unknown[];
  readonly error?: unknown;
}

/** The recorded events as an SSE body: each one's name line (when it has one), its data line, a blank line. */
export function sseBody(events: readonly RecordedEvent[]): string {
  return events
    .map(({ event, data }) => {
      const name = event === undefined ? '' : `event: ${event}\n`;
      return `${name}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
    })
    .join('');
}

async function drain(stream: AsyncIterable<unknown>): Promise<Replay> {
  const items: unknown[] = [];
  try {
    for await (const item of stream) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items };
}

/** Through `@anthropic-ai/sdk`'s stream: it skips `ping`, and throws an `error` event as an `APIError`. */
export function replayAnthropic(events: readonly RecordedEvent[]): Promise<Replay> {
  const response = new Response(sseBody(events), { headers: { 'content-type': 'text/event-stream' } });
  return drain(AnthropicStream.fromSSEResponse(response, new AbortController()));
}

/** Through `openai`'s stream: it stops at `[DONE]`, and throws a chunk carrying `error` as an `APIError`. */
export function replayOpenAI(chunks: readonly unknown[]): Promise<Replay> {
  const response = new Response(sseBody(chunks.map((data) => ({ data }))), {
    headers: { 'content-type': 'text/event-stream' },
  });
  return drain(OpenAIStream.fromSSEResponse(response, new AbortController()));
}
