// Unit tests: tool call ids mapped into what a format accepts (Anthropic's character set, a length limit), deterministically.
import {
  ANTHROPIC_TOOL_CALL_ID,
  toolCallIdFor,
  type ToolCallIdFormat,
} from '../../../src/providers/tool-call-id';

describe('toolCallIdFor', () => {
  it('leaves an id the format accepts unchanged', () => {
    expect(toolCallIdFor('toolu_01A-b', ANTHROPIC_TOOL_CALL_ID)).toBe('toolu_01A-b');
  });

  it('maps other ids to accepted text, the same every time, and different ids apart', () => {
    const mapped = toolCallIdFor('call:1/a.b', ANTHROPIC_TOOL_CALL_ID);
    expect(mapped).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(mapped.startsWith('call_1_a_b_')).toBe(true);
    expect(toolCallIdFor('call:1/a.b', ANTHROPIC_TOOL_CALL_ID)).toBe(mapped);
    // Both sanitize to the same text; the hash of the original keeps them apart.
    expect(toolCallIdFor('call:1/a:b', ANTHROPIC_TOOL_CALL_ID)).not.toBe(mapped);
  });

  it('holds a length limit, hash included', () => {
    const format: ToolCallIdFormat = { invalidCharacter: /[^a-zA-Z0-9_-]/g, maxLength: 40 };
    const long = 'x'.repeat(60);
    const mapped = toolCallIdFor(long, format);
    expect(mapped).toHaveLength(40);
    expect(toolCallIdFor(`${long}y`, format)).not.toBe(mapped);
    expect(toolCallIdFor('short', format)).toBe('short');
  });
});
