// Which provider kind a reasoning item on the Responses surface belongs to, carried in its encrypted_content. Node side, pure.
import { ProviderKindSchema, type ReasoningPart } from '../config/request';

/**
 * The prefix of an `encrypted_content` the gateway wrote for reasoning that OpenAI's Responses API did not
 * produce. OpenAI's own encrypted content never contains `:`, so the two cannot be confused.
 */
export const FOREIGN_REASONING_PREFIX = 'switchyard:';

/** The origin name of reasoning that carried none (it is then sent to no provider). */
const NO_ORIGIN = 'none';

/** What a foreign marker carries after `switchyard:<origin>:`, as base64url JSON. */
interface ForeignTail {
  readonly signature?: string;
  readonly redactedData?: string;
}

/** The reasoning part an input item stands for; `undefined` when its `switchyard:` marker was never ours. */
export interface ReasoningItemInput {
  /** The item's `id` (`rs_…`). */
  readonly id: string;
  /** The summary texts joined with a blank line. */
  readonly text: string;
  readonly encryptedContent?: string | null;
}

function tailOf(encoded: string): ForeignTail | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  try {
    const tail: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (typeof tail !== 'object' || tail === null || Array.isArray(tail)) return undefined;
    const { signature, redactedData, ...rest } = tail as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return undefined;
    if (signature !== undefined && typeof signature !== 'string') return undefined;
    if (redactedData !== undefined && typeof redactedData !== 'string') return undefined;
    return {
      ...(signature !== undefined ? { signature } : {}),
      ...(redactedData !== undefined ? { redactedData } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * The one rule for reasoning items crossing the Responses surface, both ways.
 *
 * Out (`encryptedContentOf`): OpenAI Responses reasoning keeps its own encrypted content; reasoning of any other
 * kind (Anthropic thinking, an OpenAI-compatible model's `reasoning_content`) gets
 * `switchyard:<origin>:<base64url of {signature, redactedData}>`, so a client that sends the item back (as
 * stateless Responses clients do) hands us that kind's reasoning again, its signature intact.
 *
 * In (`reasoningOf`): an item marked `switchyard:<origin>:…` is that origin's reasoning; any other encrypted
 * content is OpenAI's, kept with the item's id, which OpenAI wants back beside it. An item without encrypted
 * content can go to no provider (a stateless call cannot look its id up), so it keeps its text and no origin.
 */
export const reasoningOrigin = {
  /** The `encrypted_content` of a reasoning part; undefined for OpenAI reasoning that came without any. */
  encryptedContentOf(part: Pick<ReasoningPart, 'signature' | 'redactedData' | 'origin'>): string | undefined {
    if (part.origin === 'openai-responses') return part.signature;
    const tail: ForeignTail = {
      ...(part.signature !== undefined ? { signature: part.signature } : {}),
      ...(part.redactedData !== undefined ? { redactedData: part.redactedData } : {}),
    };
    const encoded = Buffer.from(JSON.stringify(tail), 'utf8').toString('base64url');
    return `${FOREIGN_REASONING_PREFIX}${part.origin ?? NO_ORIGIN}:${encoded}`;
  },

  reasoningOf(item: ReasoningItemInput): ReasoningPart | undefined {
    const encrypted = item.encryptedContent;
    if (encrypted === undefined || encrypted === null || encrypted === '') {
      return { type: 'reasoning', text: item.text };
    }
    if (!encrypted.startsWith(FOREIGN_REASONING_PREFIX)) {
      return {
        type: 'reasoning',
        text: item.text,
        signature: encrypted,
        id: item.id,
        origin: 'openai-responses',
      };
    }
    const [origin, encoded, ...more] = encrypted.slice(FOREIGN_REASONING_PREFIX.length).split(':');
    if (origin === undefined || encoded === undefined || more.length > 0) return undefined;
    const tail = tailOf(encoded);
    if (tail === undefined) return undefined;
    if (origin === NO_ORIGIN) return { type: 'reasoning', text: item.text };
    const kind = ProviderKindSchema.safeParse(origin);
    // OpenAI Responses reasoning is never marked: such a marker was made up.
    if (!kind.success || kind.data === 'openai-responses') return undefined;
    return { type: 'reasoning', text: item.text, ...tail, origin: kind.data };
  },
};
