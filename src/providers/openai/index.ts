// The OpenAI adapter's public surface (kinds `openai` and `openai-compatible`). Worker side.
export { OpenAIChatProvider, type OpenAIChatProviderConfig } from './openai-chat-provider';
export { classifyOpenAIError } from './classify-error';
export { mapOpenAIFinishReason } from './map-finish-reason';
