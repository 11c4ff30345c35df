// An OpenAI Responses request → the neutral request of a routed call, refusing what it cannot honour. Node side.
import { z } from 'zod';
import type { GenerationRequestInput, TextPart } from '../config/request';
import { checkField, handledFields, invalidField } from './parse-body';
import { RESPONSES_LABELS } from './responses-echo';
import { convertInput } from './responses-parse-input';
import {
  convertInclude,
  convertReasoning,
  convertTextFormat,
  convertToolChoice,
  convertTools,
  MetadataSchema,
  ReasoningConfigSchema,
  TextConfigSchema,
} from './responses-parse-options';
import type { SurfaceRequest } from './surface';
import { OPENAI_SHARED_IGNORED_FIELDS, ServiceTierSchema } from './openai-common-fields';

/**
 * Fields the gateway accepts and ignores, each with why ignoring it changes neither what the call means nor
 * what it costs. Their values are still checked (a value that would change either is refused by name). Any
 * other field the gateway does not handle is refused by name.
 */
export const RESPONSES_IGNORED_FIELDS: Readonly<Record<string, string>> = {
  ...OPENAI_SHARED_IGNORED_FIELDS,
  truncation:
    '"disabled" is what every call does: an input too long for the model is an error (auto is refused)',
  background: 'false is what every call is: answered in the request (true is refused)',
  top_logprobs: '0 asks for nothing (any other value is refused)',
  'stream_options.include_obfuscation': 'padding against side channels; it changes no token',
  'text.verbosity': '"medium" is the default (other verbosities are refused)',
  'reasoning.summary':
    'a readable summary of the reasoning: it changes no answer; echoed. No OpenAI Responses target is asked for ' +
    'one (OpenAI refuses them to unverified organizations; the encrypted content carries the reasoning), and ' +
    'other targets answer with their own thinking whatever it says',
  'input.*.status': "an item's lifecycle status, as answers return it",
  'input.*.phase': 'which stage of an answer an assistant message was, as answers return it',
  'input.*.content.*.annotations': 'citations describing an answer sent back; they add nothing to the text',
  'input.*.content.*.parsed': "the SDK's parse of an answer's text sent back; the text itself goes",
  'input.*.parsed_arguments': "the SDK's parse of a function call's arguments sent back; the arguments go",
  'input.*.content (reasoning items)':
    'the raw reasoning text a model showed; the summary and encrypted content go back',
};

/** Fields OpenAI defines that the gateway refuses whenever they are set (null is not set), with why. */
const REFUSED_FIELDS: Readonly<Record<string, string>> = {
  conversation: 'conversations are stored at OpenAI; continue with previous_response_id',
  prompt: 'prompt templates are stored at OpenAI and cannot be routed',
  max_tool_calls: 'a cap on built-in tool calls cannot be routed (Switchyard runs no built-in tools)',
  prompt_cache_retention: 'a provider cache retention cannot be routed',
  context_management: 'context compaction runs at OpenAI only and cannot be routed',
};

const ResponsesRequestSchema = z.strictObject({
  /** A route name; absent for the default route. */
  model: z.string().min(1).optional(),
  input: z.union([z.string(), z.array(z.unknown())]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  text: TextConfigSchema.nullish(),
  max_output_tokens: z.number().int().positive().max(1_000_000).nullish(),
  reasoning: ReasoningConfigSchema.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  metadata: MetadataSchema.nullish(),
  include: z.array(z.string()).nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).nullish(),
  previous_response_id: z.string().min(1).nullish(),
  // Accepted and ignored (RESPONSES_IGNORED_FIELDS); values that would matter are refused.
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  service_tier: ServiceTierSchema,
  truncation: z
    .string()
    .refine(
      (truncation) => truncation === 'disabled',
      'dropping input to fit the context window cannot be routed; only "disabled" is accepted',
    )
    .nullish(),
  background: z
    .boolean()
    .refine((background) => !background, 'background responses cannot be routed; send the request and wait')
    .nullish(),
  top_logprobs: z
    .number()
    .refine((count) => count === 0, 'log probabilities cannot be routed; only 0 is accepted')
    .nullish(),
});

const HANDLED_FIELDS = new Set(Object.keys(ResponsesRequestSchema.shape));

/** `instructions` first, then the input's system and developer messages: one string stays a string. */
function systemOf(instructions: string | null | undefined, fromInput: readonly TextPart[]) {
  const parts: TextPart[] = [
    ...(instructions !== undefined && instructions !== null
      ? [{ type: 'text' as const, text: instructions }]
      : []),
    ...fromInput,
  ].filter((part) => part.text !== '');
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0]!.text : parts;
}

export function parseResponsesRequest(raw: unknown): SurfaceRequest {
  const body = checkField(ResponsesRequestSchema, handledFields(raw, HANDLED_FIELDS, REFUSED_FIELDS), '');
  const previousResponseId = body.previous_response_id ?? undefined;
  const { system, messages } = convertInput(body.input ?? []);
  // With previous_response_id the conversation so far comes from that response: the input may only add to it.
  if (messages.length === 0 && previousResponseId === undefined) {
    throw invalidField('input', 'at least one user message (or previous_response_id) is required');
  }
  const tools = body.tools ? convertTools(body.tools) : [];
  const toolChoice = convertToolChoice(body.tool_choice, tools);
  const format = convertTextFormat(body.text);
  const { reasoning, summary } = convertReasoning(body.reasoning);
  const encryptedReasoning = convertInclude(body.include);
  const systemPrompt = systemOf(body.instructions, system);
  const request: GenerationRequestInput = {
    messages,
    ...(systemPrompt !== undefined ? { system: systemPrompt } : {}),
    ...(typeof body.max_output_tokens === 'number' ? { maxOutputTokens: body.max_output_tokens } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(format.jsonSchema ? { jsonSchema: format.jsonSchema } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(typeof body.parallel_tool_calls === 'boolean' ? { parallelToolCalls: body.parallel_tool_calls } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
  const metadata = body.metadata ?? {};
  const labels: Record<string, string> = {
    ...(previousResponseId !== undefined
      ? { [RESPONSES_LABELS.previousResponseId]: previousResponseId }
      : {}),
    ...(Object.keys(metadata).length > 0 ? { [RESPONSES_LABELS.metadata]: JSON.stringify(metadata) } : {}),
    ...(format.label !== undefined ? { [RESPONSES_LABELS.textFormat]: format.label } : {}),
    ...(summary !== undefined ? { [RESPONSES_LABELS.reasoningSummary]: summary } : {}),
  };
  return {
    ...(body.model !== undefined ? { route: body.model } : {}),
    request,
    stream: body.stream === true,
    // The Responses stream always ends with the whole response, usage included.
    includeUsage: true,
    ...(previousResponseId !== undefined ? { previousResponseId } : {}),
    store: body.store !== false,
    encryptedReasoning,
    labels,
  };
}
