// The OpenAI Responses adapter's public surface (kind `openai-responses`). Worker side.
export { OpenAIResponsesProvider, type OpenAIResponsesProviderConfig } from './openai-responses-provider';
export { mapResponsesFinishReason } from './map-finish-reason';
