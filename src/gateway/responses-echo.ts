// The request fields a Responses answer echoes, rebuilt from the routed call's input and its labels. Node side, pure.
import type { GenerationRequestInput, TextPart } from '../config/request';

/**
 * Labels the Responses surface keeps with a call, for what its answer echoes and the neutral request cannot
 * hold. Small values only: labels are shown with the call.
 */
export const RESPONSES_LABELS = {
  /** `'false'` when the response is not stored (`store: false`): it can be neither read back nor continued. */
  store: 'responsesStore',
  /** The `previous_response_id` the call continued. */
  previousResponseId: 'responsesPreviousResponseId',
  /** The caller's `metadata`, as JSON. */
  metadata: 'responsesMetadata',
  /** `text.format` without its schema (the request holds that), as JSON: its name, description, strictness. */
  textFormat: 'responsesTextFormat',
  /** `reasoning.summary` as asked. */
  reasoningSummary: 'responsesReasoningSummary',
} as const;

type Labels = Readonly<Record<string, string>> | undefined;

/** The request fields a Response echoes, in OpenAI's wire shape. */
export interface ResponseEcho {
  readonly instructions: string | null;
  readonly max_output_tokens: number | null;
  readonly metadata: Record<string, string>;
  readonly parallel_tool_calls: boolean;
  readonly previous_response_id: string | null;
  readonly reasoning: { readonly effort: string | null; readonly summary: string | null };
  readonly store: boolean;
  readonly temperature: number | null;
  readonly text: { readonly format: Record<string, unknown> };
  readonly tool_choice: string | { readonly type: 'function'; readonly name: string };
  readonly tools: Record<string, unknown>[];
  readonly top_p: number | null;
  readonly truncation: 'disabled';
  readonly background: false;
}

function parsedLabel(labels: Labels, name: string): Record<string, unknown> | undefined {
  const text = labels?.[name];
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The system prompt as `instructions`: the request's instructions and any system or developer input messages,
 * joined as the model received them.
 */
function instructionsOf(system: string | readonly TextPart[] | undefined): string | null {
  if (system === undefined) return null;
  return typeof system === 'string' ? system : system.map((part) => part.text).join('\n\n');
}

function textFormatOf(request: GenerationRequestInput, labels: Labels): Record<string, unknown> {
  const format = parsedLabel(labels, RESPONSES_LABELS.textFormat);
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (request.jsonSchema === undefined) return { type: 'text' };
  return {
    type: 'json_schema',
    name: typeof format?.name === 'string' ? format.name : 'response',
    ...(typeof format?.description === 'string' ? { description: format.description } : {}),
    schema: request.jsonSchema,
    strict: typeof format?.strict === 'boolean' ? format.strict : null,
  };
}

/** The echo of a call on the Responses surface, from its input (validated: defaults applied) and its labels. */
export function responseEchoOf(input: {
  readonly request: GenerationRequestInput;
  readonly labels?: Labels;
}): ResponseEcho {
  const { request, labels } = input;
  const metadata = parsedLabel(labels, RESPONSES_LABELS.metadata) ?? {};
  const choice = request.toolChoice;
  return {
    instructions: instructionsOf(request.system),
    max_output_tokens: request.maxOutputTokens ?? null,
    metadata: Object.fromEntries(
      Object.entries(metadata).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    ),
    parallel_tool_calls: request.parallelToolCalls ?? true,
    previous_response_id: labels?.[RESPONSES_LABELS.previousResponseId] ?? null,
    reasoning: {
      effort: request.reasoning?.effort ?? null,
      summary: labels?.[RESPONSES_LABELS.reasoningSummary] ?? null,
    },
    store: labels?.[RESPONSES_LABELS.store] !== 'false',
    temperature: request.temperature ?? null,
    text: { format: textFormatOf(request, labels) },
    tool_choice:
      choice === undefined
        ? 'auto'
        : typeof choice === 'string'
          ? choice
          : { type: 'function', name: choice.name },
    tools: (request.tools ?? []).map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters,
      strict: tool.strict ?? null,
    })),
    top_p: request.topP ?? null,
    truncation: 'disabled',
    background: false,
  };
}
