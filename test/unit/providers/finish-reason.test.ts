// Unit tests: mapping OpenAI finish_reason and Anthropic stop_reason to the neutral finish reason.
import { mapAnthropicStopReason } from '../../../src/providers/anthropic/map-finish-reason';
import { mapOpenAIFinishReason } from '../../../src/providers/openai/map-finish-reason';

describe('mapOpenAIFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['something_new', 'other'],
  ])('maps %p to %p and keeps the raw value', (raw, unified) => {
    expect(mapOpenAIFinishReason(raw)).toEqual({ unified, raw });
  });

  it('maps a missing finish reason to other with raw null', () => {
    expect(mapOpenAIFinishReason(null)).toEqual({ unified: 'other', raw: null });
    expect(mapOpenAIFinishReason(undefined)).toEqual({ unified: 'other', raw: null });
  });
});

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
  ])('maps %p to %p and keeps the raw value', (raw, unified) => {
    expect(mapAnthropicStopReason(raw)).toEqual({ unified, raw });
  });

  it('maps a missing stop reason to other with raw null', () => {
    expect(mapAnthropicStopReason(null)).toEqual({ unified: 'other', raw: null });
  });
});
