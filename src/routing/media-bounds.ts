// What images and documents can cost a target, and the prompt bound of a request on one target. Pure; workflow-safe.
import type { ConversationTraits } from '../config/conversation';
import type { ResolvedTarget } from '../config/resolved-route';

/**
 * The most prompt tokens one image costs on Anthropic. Anthropic bills about width × height / 750 tokens and
 * scales larger images down before it counts them (about 1,600 tokens at the long-edge limit of 1,568 px for most
 * models; the high-resolution models of 2026 allow up to 2,576 px on the long edge, under 5,000 tokens):
 * https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
 */
export const ANTHROPIC_IMAGE_TOKENS = 5_000;

/**
 * The most prompt tokens one image costs on OpenAI's tile-priced models: at `detail: high` an image is scaled to
 * fit 2048 × 2048, then its short side to 768 px, which is at most 2 × 4 tiles of 512 px; gpt-4o-mini, the
 * dearest per tile, bills 2,833 base plus 5,667 per tile = 48,169 tokens
 * (https://platform.openai.com/docs/guides/images-vision#calculating-costs). Patch-priced models (gpt-4.1-mini,
 * o4-mini) stay under 4,000. A model's own `maxImageTokens` tightens it.
 */
export const OPENAI_IMAGE_TOKENS = 48_169;

/**
 * The most prompt tokens a PDF can cost where no context window is configured. A PDF's text may be compressed
 * far below its extracted length, so its bytes bound nothing; but no provider bills a prompt beyond the model's
 * context window (a longer one is refused unbilled), and the largest windows offered are a million tokens.
 */
export const DOCUMENT_TOKENS_WITHOUT_WINDOW = 1_000_000;

/** The most one image costs on `target`: its model's own figure, else its provider kind's published worst case. */
export function imageTokenBound(target: Pick<ResolvedTarget, 'providerKind' | 'maxImageTokens'>): number {
  if (target.maxImageTokens !== undefined) return target.maxImageTokens;
  switch (target.providerKind) {
    case 'anthropic':
      return ANTHROPIC_IMAGE_TOKENS;
    // The Responses API bills images as Chat Completions does; compatible servers get OpenAI's bound too.
    case 'openai':
    case 'openai-responses':
    case 'openai-compatible':
      return OPENAI_IMAGE_TOKENS;
    default:
      return target.providerKind satisfies never;
  }
}

export interface TargetInputBound {
  /** Prompt tokens the budget reserves for: every item at its worst, a document up to the whole window. */
  readonly tokens: number;
  /**
   * Prompt tokens the context-window check compares: the same, except documents, whose size is unknowable
   * before the provider reads them (a PDF too long is the provider's `context_overflow`).
   */
  readonly fitTokens: number;
}

/**
 * The prompt bound of a request on one target: the text bound (`estimateInputTokens`) plus each image and
 * document at the target's worst case. A request with documents is bounded by the target's context window when
 * one is configured, since no provider bills more prompt than its window holds.
 */
export function targetInputBound(
  target: Pick<ResolvedTarget, 'providerKind' | 'maxImageTokens' | 'contextWindow'>,
  textTokens: number,
  traits: Pick<ConversationTraits, 'images' | 'documents'>,
): TargetInputBound {
  const fitTokens = textTokens + traits.images * imageTokenBound(target);
  if (traits.documents === 0) return { tokens: fitTokens, fitTokens };
  const documentTokens = fitTokens + traits.documents * DOCUMENT_TOKENS_WITHOUT_WINDOW;
  const tokens =
    target.contextWindow === undefined ? documentTokens : Math.min(documentTokens, target.contextWindow);
  return { tokens: Math.max(tokens, fitTokens), fitTokens };
}
