// The Anthropic adapter's public surface. Worker side.
export {
  AnthropicMessagesProvider,
  type AnthropicMessagesProviderConfig,
} from './anthropic-messages-provider';
export { classifyAnthropicError } from './classify-error';
export { mapAnthropicStopReason } from './map-finish-reason';
