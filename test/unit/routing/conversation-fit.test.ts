// Which targets can take a conversation, and what images, documents and cache writes add to an attempt's bound.
import { conversationTraits } from '../../../src/config/conversation';
import { GenerationRequestSchema, type GenerationRequestInput } from '../../../src/config/request';
import type { ResolvedTarget } from '../../../src/config/resolved-route';
import { checkConversationFit } from '../../../src/routing/conversation-fit';
import { estimateInputTokens } from '../../../src/routing/estimate-tokens';
import {
  ANTHROPIC_IMAGE_TOKENS,
  DOCUMENT_TOKENS_WITHOUT_WINDOW,
  OPENAI_IMAGE_TOKENS,
  targetInputBound,
} from '../../../src/routing/media-bounds';
import { attemptBound, costOfUsage } from '../../../src/routing/money';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
const parse = (input: GenerationRequestInput) => GenerationRequestSchema.parse(input);
const fitOf = (target: Pick<ResolvedTarget, 'providerKind' | 'supports'>, input: GenerationRequestInput) => {
  const request = parse(input);
  return checkConversationFit(target, request, conversationTraits(request));
};

const toolLoop = (reasoningOrigin?: 'anthropic' | 'openai-compatible'): GenerationRequestInput => ({
  messages: [
    { role: 'user', content: 'weather?' },
    {
      role: 'assistant',
      content: [
        ...(reasoningOrigin
          ? [{ type: 'reasoning' as const, text: 'look it up', signature: 's', origin: reasoningOrigin }]
          : []),
        { type: 'tool_call', id: 'call_1', name: 'weather', arguments: '{}' },
      ],
    },
    { role: 'tool', content: [{ type: 'tool_result', callId: 'call_1', content: 'sunny' }] },
  ],
  tools: [{ name: 'weather', parameters: { type: 'object' } }],
  reasoning: { budgetTokens: 2048 },
  maxOutputTokens: 4096,
});

describe('conversation fit', () => {
  it('a model that declares nothing takes everything', () => {
    const image = {
      messages: [
        {
          role: 'user' as const,
          content: [{ type: 'image' as const, data: PNG, mediaType: 'image/png' as const }],
        },
      ],
    };
    expect(fitOf({ providerKind: 'openai' }, image)).toEqual({ fits: true });
    expect(fitOf({ providerKind: 'openai', supports: { images: false } }, image)).toEqual({
      fits: false,
      message: 'the model does not accept images',
    });
    expect(fitOf({ providerKind: 'openai', supports: { tools: false } }, toolLoop())).toMatchObject({
      fits: false,
    });
    expect(fitOf({ providerKind: 'openai', supports: { reasoning: false } }, toolLoop())).toMatchObject({
      fits: false,
    });
  });

  it('Anthropic with thinking on takes a tool loop only when the tool-calling turn holds its own thinking', () => {
    expect(fitOf({ providerKind: 'anthropic' }, toolLoop('anthropic'))).toEqual({ fits: true });
    expect(fitOf({ providerKind: 'anthropic' }, toolLoop('openai-compatible'))).toMatchObject({
      fits: false,
    });
    expect(fitOf({ providerKind: 'anthropic' }, toolLoop())).toMatchObject({ fits: false });
    // Other kinds take it: the foreign reasoning is simply not sent to them.
    expect(fitOf({ providerKind: 'openai' }, toolLoop('anthropic'))).toEqual({ fits: true });
    // Without thinking the same loop fits Anthropic.
    const { reasoning: _reasoning, ...noThinking } = toolLoop();
    expect(fitOf({ providerKind: 'anthropic' }, noThinking)).toEqual({ fits: true });
  });
});

describe('media and cache in the bound', () => {
  const prices = {
    inputUsdPerMillion: 3,
    cachedInputUsdPerMillion: 0.3,
    cacheWriteUsdPerMillion: 3.75,
    cacheWrite1hUsdPerMillion: 6,
    outputUsdPerMillion: 15,
  };

  it('adds each image at the target kind’s published worst case, or the model’s own figure', () => {
    const traits = { images: 3, documents: 0 };
    expect(targetInputBound({ providerKind: 'anthropic' }, 100, traits)).toEqual({
      tokens: 100 + 3 * ANTHROPIC_IMAGE_TOKENS,
      fitTokens: 100 + 3 * ANTHROPIC_IMAGE_TOKENS,
    });
    expect(targetInputBound({ providerKind: 'openai' }, 100, traits).tokens).toBe(
      100 + 3 * OPENAI_IMAGE_TOKENS,
    );
    expect(targetInputBound({ providerKind: 'openai', maxImageTokens: 800 }, 100, traits).tokens).toBe(2500);
  });

  it('bounds a document by the context window, and leaves it out of the fit check', () => {
    const traits = { images: 0, documents: 1 };
    expect(targetInputBound({ providerKind: 'anthropic', contextWindow: 200_000 }, 100, traits)).toEqual({
      tokens: 200_000,
      fitTokens: 100,
    });
    expect(targetInputBound({ providerKind: 'anthropic' }, 100, traits).tokens).toBe(
      100 + DOCUMENT_TOKENS_WITHOUT_WINDOW,
    );
  });

  it('a text request is bounded as before parts existed', () => {
    const request = parse({ messages: [{ role: 'user', content: 'hello there' }], maxOutputTokens: 10 });
    const tokens = estimateInputTokens(request);
    expect(
      targetInputBound({ providerKind: 'openai', contextWindow: 1 }, tokens, conversationTraits(request)),
    ).toEqual({
      tokens,
      fitTokens: tokens,
    });
    expect(attemptBound(prices, tokens, 10)).toBe(
      costOfUsage(prices, { inputTokens: tokens, cachedInputTokens: 0, outputTokens: 10 }),
    );
  });

  it('prices every prompt token as a cache write when a breakpoint may write one', () => {
    expect(attemptBound(prices, 1_000_000, 0, '5m')).toBe(3.75e9);
    expect(attemptBound(prices, 1_000_000, 0, '1h')).toBe(6e9);
    expect(attemptBound(prices, 1_000_000, 0)).toBe(3e9);
  });

  it('charges cache reads and both kinds of cache writes at their own prices', () => {
    expect(
      costOfUsage(prices, {
        inputTokens: 1_000_000,
        cachedInputTokens: 1_000_000,
        cacheWriteInputTokens: 1_000_000,
        cacheWrite1hInputTokens: 1_000_000,
        outputTokens: 1_000_000,
      }),
    ).toBe((3 + 0.3 + 3.75 + 6 + 15) * 1e9);
    // A route resolved before cache writes had prices charges them as input, as it did then.
    const { cacheWriteUsdPerMillion: _five, cacheWrite1hUsdPerMillion: _hour, ...older } = prices;
    expect(
      costOfUsage(older, {
        inputTokens: 0,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 1_000_000,
        outputTokens: 0,
      }),
    ).toBe(3e9);
  });

  it('counts tool calls, tool results and reasoning in the prompt bound', () => {
    const plain = estimateInputTokens(parse({ messages: [{ role: 'user', content: 'x' }] }));
    const loop = estimateInputTokens(parse(toolLoop('anthropic')));
    expect(loop).toBeGreaterThan(plain + 'look it up'.length + '{}'.length + 'sunny'.length);
  });
});
