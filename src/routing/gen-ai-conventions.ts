// The OpenTelemetry GenAI semantic conventions Switchyard follows in spans and metrics: attribute names and
// values. Plain constants and pure functions, workflow-safe: workflow metrics and span interceptors share them.
import type { ProviderKind } from '../config/request';

/** Attribute names of the GenAI conventions, as spans and metrics carry them. */
export const GenAiAttribute = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
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
