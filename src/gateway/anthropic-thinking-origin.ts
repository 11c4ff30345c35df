// Which provider kind a thinking block on the Anthropic surface belongs to, carried in its signature. Node side, pure.
import { ProviderKindSchema, type ProviderKind, type ReasoningPart } from '../config/request';

/**
 * The prefix of a signature the gateway wrote for reasoning that Anthropic did not produce. Anthropic's own
 * signatures are base64 and never contain `:`, so the two cannot be confused.
 */
export const FOREIGN_SIGNATURE_PREFIX = 'switchyard:';

/** What follows `switchyard:<origin>:`: base64 of nothing in particular, so the whole looks like a signature. */
const FOREIGN_SIGNATURE_TAIL = Buffer.from('not-signed').toString('base64');

/** The origin name of reasoning that carried none (it is then sent to no provider). */
const NO_ORIGIN = 'none';

/**
 * The one rule for thinking blocks crossing the Anthropic surface, both ways.
 *
 * Out (`signatureOf`): Anthropic's reasoning keeps its signature; reasoning of any other kind (an
 * OpenAI-compatible model's `reasoning_content`, say) gets `switchyard:<origin>:…`, so a client that sends the
 * block back (as Anthropic clients must, in a tool loop) hands us a block we recognise as foreign.
 *
 * In (`reasoningOf`): a client's thinking block is Anthropic's, its signature checked by Anthropic itself; one
 * signed `switchyard:<origin>:…` is reasoning of that origin without a signature, so it is never sent to
 * Anthropic as signed (nor its made-up signature anywhere).
 */
export const thinkingOrigin = {
  signatureOf(part: Pick<ReasoningPart, 'signature' | 'origin'>): string {
    if (part.origin === 'anthropic') return part.signature ?? '';
    return `${FOREIGN_SIGNATURE_PREFIX}${part.origin ?? NO_ORIGIN}:${FOREIGN_SIGNATURE_TAIL}`;
  },

  /** The reasoning part of a client's thinking block; `undefined` for a `switchyard:` signature we never wrote. */
  reasoningOf(text: string, signature: string): ReasoningPart | undefined {
    if (!signature.startsWith(FOREIGN_SIGNATURE_PREFIX)) {
      return { type: 'reasoning', text, signature, origin: 'anthropic' };
    }
    const origin = signature.slice(FOREIGN_SIGNATURE_PREFIX.length).split(':', 1)[0]!;
    if (origin === NO_ORIGIN) return { type: 'reasoning', text };
    const kind = ProviderKindSchema.safeParse(origin);
    // Anthropic's own reasoning is never marked: such a signature was made up.
    if (!kind.success || kind.data === 'anthropic') return undefined;
    return { type: 'reasoning', text, origin: kind.data satisfies ProviderKind };
  },
};
