// The conversation model: old text-only requests read as before, parts validate or name the field at fault.
import { callInputDigest } from '../../../src/client/input-digest';
import { conversationTraits } from '../../../src/config/conversation';
import { GenerationRequestSchema } from '../../../src/config/request';
import { firstIssueField, prettifyIssues } from '../../../src/config/strict-object';
import { RoutedCallInputSchema } from '../../../src/config/routed-call-input';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

const issuePath = (value: unknown) => {
  const result = GenerationRequestSchema.safeParse(value);
  if (result.success) return undefined;
  return firstIssueField(result.error);
};

describe('the conversation request', () => {
  it('reads a text-only request exactly as it was written, so its digest is the one recorded before parts existed', () => {
    const written = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'again' },
      ],
      system: 'be brief',
      maxOutputTokens: 50,
      temperature: 0.2,
    };
    expect(GenerationRequestSchema.parse(written)).toEqual(written);
    // The digest of this input, as the release before content parts computed it (recorded then).
    const input = RoutedCallInputSchema.parse({ route: 'support', request: written });
    expect(callInputDigest(input)).toBe(OLD_DIGEST);
  });

  it('takes a whole tool loop with images, reasoning and cache breakpoints', () => {
    const request = GenerationRequestSchema.parse({
      system: [{ type: 'text', text: 'You are terse.', cache: { ttl: '1h' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in this?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'I should look.', signature: 'sig', origin: 'anthropic' },
            { type: 'tool_call', id: 'toolu_1', name: 'look', arguments: '{"zoom":2}' },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              callId: 'toolu_1',
              content: [
                { type: 'text', text: 'a cat' },
                { type: 'image', url: 'https://example.com/cat.png' },
              ],
            },
          ],
        },
      ],
      tools: [{ name: 'look', parameters: { type: 'object' }, cache: {} }],
      toolChoice: { type: 'tool', name: 'look' },
      parallelToolCalls: false,
      reasoning: { budgetTokens: 2048 },
      stopSequences: ['END'],
      topP: 0.9,
      topK: 40,
      seed: 7,
      maxOutputTokens: 4096,
    });
    expect(conversationTraits(request)).toEqual({
      images: 2,
      documents: 0,
      tools: true,
      reasoning: true,
      cacheTtl: '1h',
    });
  });

  it.each([
    [{ messages: [{ role: 'tool', content: 'plain text' }] }, 'messages.0.content'],
    [
      { messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png' }] }] },
      'messages.0.content.0.url',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'image', data: PNG }] }] },
      'messages.0.content.0.mediaType',
    ],
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'image', data: 'not base64!', mediaType: 'image/png' }] },
        ],
      },
      'messages.0.content.0.data',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'tool_call', id: 'x', name: 'y', arguments: '{}' }] }] },
      'messages.0.content.0.type',
    ],
    [
      {
        messages: [
          { role: 'assistant', content: [{ type: 'tool_call', id: '', name: 'y', arguments: '{}' }] },
        ],
      },
      'messages.0.content.0.id',
    ],
    [
      { messages: [{ role: 'user', content: 'x' }], reasoning: { effort: 'high', budgetTokens: 2048 } },
      'reasoning',
    ],
    [{ messages: [{ role: 'user', content: 'x' }], toolChoice: 'sometimes' }, 'toolChoice'],
    [{ messages: [{ role: 'user', content: 'x' }], toolChoice: 'required' }, 'toolChoice'],
    [
      {
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ name: 'a', parameters: {} }],
        toolChoice: { type: 'tool', name: 'b' },
      },
      'toolChoice.name',
    ],
    [
      {
        messages: [{ role: 'user', content: 'x' }],
        system: [{ type: 'text', text: 'x', cache: { ttl: '2h' } }],
      },
      'system.0.cache.ttl',
    ],
  ])('refuses %j at %s', (value, path) => {
    expect(issuePath(value)).toBe(path);
  });

  it('refuses a schema nested too deep at the node too deep, below the field that holds it', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 70; level += 1) deep = { items: deep };
    const path = issuePath({
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: { properties: { answer: deep } },
    });
    expect(path).toMatch(/^jsonSchema\.properties\.answer(\.items)+$/);
  });

  it('says what a part may be where the part type is wrong', () => {
    const result = GenerationRequestSchema.safeParse({
      messages: [{ role: 'user', content: [{ type: 'tool_call', id: 'x', name: 'y', arguments: '{}' }] }],
    });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(prettifyIssues(result.error)).toContain(
        'a user message part is of type text, image or document',
      );
    }
  });
});

/** `callInputDigest` of the text-only input above, computed by the release before content parts. */
const OLD_DIGEST = '5d9aa0ce27c8042195c35f2d0a6f92a1884e454cc8c44db51d9e5e8627e6cc79';
