// The fake's Responses wire: the Response object and its output items (reasoning, message, function calls),
// built from a provider-neutral answer. Pure apart from the reasoning's encryption; test/bench side.
import type { FakeAnswer, FakeParsedRequest } from './answer';
import { isRecord } from './content-text';
import type { FakeResponseIds } from './provider-wire';
import { encryptReasoning } from './reasoning-encryption';

export type ResponsesItem = Record<string, unknown>;

/** A Response's lifecycle status, and why an incomplete one stopped. */
export interface ResponsesOutcome {
  readonly status: 'completed' | 'incomplete';
  readonly incompleteDetails: { readonly reason: 'max_output_tokens' | 'content_filter' } | null;
}

/** The request's own body (the Responses wire always records it). */
export function bodyOf(request: FakeParsedRequest): Readonly<Record<string, unknown>> {
  return request.body ?? {};
}

/** The digits of the request's serial, shared by every id of one response. */
function serialOf(ids: FakeResponseIds): string {
  return ids.responseId.replace(/^\D+/, '');
}

export function outcomeOf(answer: FakeAnswer): ResponsesOutcome {
  if (answer.finish === 'length')
    return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (answer.finish === 'content_filter') {
    return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  }
  return { status: 'completed', incompleteDetails: null };
}

/**
 * The reasoning summary's parts: the real API writes a summary only when `reasoning.summary` asks for one, in
 * parts the neutral side joins with a blank line (so the fake splits its reasoning text there).
 */
export function summaryParts(answer: FakeAnswer, request: FakeParsedRequest): string[] {
  const reasoning = bodyOf(request).reasoning;
  const wanted = isRecord(reasoning) && typeof (reasoning.summary ?? reasoning.generate_summary) === 'string';
  if (!wanted || answer.reasoning === undefined || answer.reasoning === '') return [];
  return answer.reasoning.split('\n\n');
}

function includesEncryptedReasoning(request: FakeParsedRequest): boolean {
  const include = bodyOf(request).include;
  return Array.isArray(include) && include.includes('reasoning.encrypted_content');
}

/** The output items of a finished response, in the order the model produced them. */
export function outputItems(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): ResponsesItem[] {
  if (answer.empty) return [];
  const serial = serialOf(ids);
  const items: ResponsesItem[] = [];
  if (answer.reasoning !== undefined) {
    const id = `rs_fake${serial}`;
    items.push({
      id,
      type: 'reasoning',
      summary: summaryParts(answer, request).map((text) => ({ type: 'summary_text', text })),
      // Only when asked for; it carries the whole reasoning, which the summary may leave out.
      ...(includesEncryptedReasoning(request)
        ? { encrypted_content: encryptReasoning({ id, text: answer.reasoning }) }
        : {}),
    });
  }
  const outcome = outcomeOf(answer);
  if (answer.text !== '' || answer.refusal !== undefined) {
    items.push({
      id: `msg_fake${serial}`,
      type: 'message',
      status: outcome.status,
      content:
        answer.refusal !== undefined
          ? [{ type: 'refusal', refusal: answer.refusal }]
          : [{ type: 'output_text', annotations: [], logprobs: [], text: answer.text }],
      role: 'assistant',
    });
  }
  for (const [index, call] of answer.toolCalls.entries()) {
    items.push({
      id: `fc_fake${serial}_${index}`,
      type: 'function_call',
      status: 'completed',
      arguments: JSON.stringify(call.arguments),
      call_id: call.id,
      name: call.name,
    });
  }
  return items;
}

/** Responses usage: input counts the cached tokens (the details say how many), output counts the reasoning. */
export function usageObject(answer: FakeAnswer): Record<string, unknown> {
  const { inputTokens, cachedInputTokens, outputTokens, reasoningTokens } = answer.usage;
  const input = inputTokens + cachedInputTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cachedInputTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: input + outputTokens,
  };
}

/** The function tools as the real API repeats them, defaults filled in (strict mode is on unless turned off). */
function echoedTools(tools: unknown): unknown[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool: unknown) =>
    isRecord(tool) ? { description: null, parameters: null, ...tool, strict: tool.strict ?? true } : tool,
  );
}

/** The Response object around `output`, repeating the request's settings as the real API does. */
export function responseObject(
  request: FakeParsedRequest,
  ids: FakeResponseIds,
  state: {
    readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
    readonly output: readonly ResponsesItem[];
    readonly usage: Record<string, unknown> | null;
    readonly incompleteDetails?: ResponsesOutcome['incompleteDetails'];
    readonly error?: { readonly code: string; readonly message: string } | null;
  },
): Record<string, unknown> {
  const body = bodyOf(request);
  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  const text = isRecord(body.text) ? body.text : {};
  return {
    id: ids.responseId,
    object: 'response',
    created_at: ids.created,
    status: state.status,
    background: false,
    completed_at: state.status === 'completed' ? ids.created : null,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: request.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: text.format ?? { type: 'text' }, verbosity: text.verbosity ?? 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: echoedTools(body.tools),
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: state.usage,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}
