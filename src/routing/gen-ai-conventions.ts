// The OpenTelemetry GenAI semantic conventions Switchyard follows in spans and metrics: attribute names and
// values. Plain constants and pure functions, workflow-safe: workflow metrics and span interceptors share them.
import type { ProviderKind } from '../config/request';
import type { Usage } from '../providers/types';

/** Attribute names of the GenAI conventions, as spans and metrics carry them. */
export const GenAiAttribute = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  requestTopK: 'gen_ai.request.top_k',
  requestSeed: 'gen_ai.request.seed',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  tokenType: 'gen_ai.token.type',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  errorType: 'error.type',
} as const;

/** Every routed call is a chat completion in the conventions' terms, whatever surface it came through. */
export const GEN_AI_OPERATION_CHAT = 'chat';

/** Values of `gen_ai.token.type`. */
export const GenAiTokenType = { input: 'input', output: 'output' } as const;
export type GenAiTokenType = (typeof GenAiTokenType)[keyof typeof GenAiTokenType];

/**
 * The conventions' `gen_ai.provider.name` of a target: the well-known name of the API it speaks (`openai`,
 * `anthropic`), or the provider's configured name for an OpenAI-compatible service, which the conventions
 * leave to the user (a local server and a hosted one speak the same wire format but are different providers).
 */
export function genAiProviderName(kind: ProviderKind, configuredName: string): string {
  switch (kind) {
    case 'openai':
    case 'openai-responses':
      return 'openai';
    case 'anthropic':
      return 'anthropic';
    case 'openai-compatible':
      return configuredName;
    default: {
      const unknownKind: never = kind;
      return String(unknownKind);
    }
  }
}

/**
 * The conventions' client metric names, as OpenTelemetry spells them. A Prometheus endpoint cannot serve dots:
 * `SwitchyardMetric`'s neighbours in `workflows/metric-names.ts` hold the names the worker actually serves.
 */
export const GenAiMetric = {
  /** Histogram, unit `{token}`: tokens of one operation, once per `gen_ai.token.type`. */
  tokenUsage: 'gen_ai.client.token.usage',
  /** Histogram, unit `s`: wall time of one operation, from request to answer or failure. */
  operationDuration: 'gen_ai.client.operation.duration',
} as const;

/** The bucket boundaries the conventions advise for {@link GenAiMetric.tokenUsage}, in tokens (powers of 4). */
export const GEN_AI_TOKEN_USAGE_BUCKETS: readonly number[] = [
  1, 4, 16, 64, 256, 1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864,
];

/** The bucket boundaries the conventions advise for {@link GenAiMetric.operationDuration}, in seconds. */
export const GEN_AI_OPERATION_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/**
 * The conventions' `gen_ai.usage.input_tokens`: every prompt token, cache reads and cache writes included (the
 * provider's own counts split them for pricing; the conventions count the prompt once).
 */
export function genAiInputTokens(usage: Usage): number {
  return (
    usage.inputTokens +
    usage.cachedInputTokens +
    (usage.cacheWriteInputTokens ?? 0) +
    (usage.cacheWrite1hInputTokens ?? 0)
  );
}
