// Whether a target can take a conversation as it stands, and which reasoning parts it may be sent. Pure; workflow-safe.
import type { ConversationTraits } from '../config/conversation';
import type { GenerationRequest, ProviderKind, ReasoningPart } from '../config/request';
import type { ResolvedTarget } from '../config/resolved-route';
import { optionMismatch } from './kind-options';

export type ConversationFit = { readonly fits: true } | { readonly fits: false; readonly message: string };

/**
 * Reasoning parts carry a signature or encrypted state that only the provider kind that made them can read:
 * to any other kind they are dropped, never sent (a foreign signature is the provider's 400, and its text is
 * not the receiving model's own thinking).
 */
export function reasoningFor(part: ReasoningPart, kind: ProviderKind): boolean {
  return part.origin === kind;
}

/**
 * Anthropic, with thinking on, requires the assistant turn that made the pending tool calls to begin with its
 * own signed thinking. True when the request is such a tool loop and that turn has no reasoning of `kind`.
 */
function toolTurnLacksOwnReasoning(request: GenerationRequest, kind: ProviderKind): boolean {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool') return false;
  for (let index = request.messages.length - 2; index >= 0; index -= 1) {
    const message = request.messages[index]!;
    if (message.role !== 'assistant') continue;
    if (typeof message.content === 'string') return true;
    return !message.content.some((part) => part.type === 'reasoning' && reasoningFor(part, kind));
  }
  return false;
}

/**
 * Whether `target` can take `request` as it stands: what its model declares it accepts (everything when it
 * declares nothing), the options its provider kind can honour (`kind-options.ts`), and, for Anthropic with
 * reasoning on, a tool loop whose thinking it made itself. A target
 * that cannot is passed over before anything is sent, with the message recorded.
 */
export function checkConversationFit(
  target: Pick<ResolvedTarget, 'providerKind' | 'supports'>,
  request: GenerationRequest,
  traits: ConversationTraits,
): ConversationFit {
  const supports = target.supports ?? {};
  if (traits.images > 0 && supports.images === false)
    return { fits: false, message: 'the model does not accept images' };
  if (traits.documents > 0 && supports.documents === false)
    return { fits: false, message: 'the model does not accept documents' };
  if (traits.tools && supports.tools === false)
    return { fits: false, message: 'the model does not accept tools' };
  if (traits.reasoning && supports.reasoning === false)
    return { fits: false, message: 'the model does not take reasoning options' };
  const mismatch = optionMismatch(target.providerKind, request);
  if (mismatch) return { fits: false, message: `${mismatch.field}: ${mismatch.reason}` };
  if (
    traits.reasoning &&
    target.providerKind === 'anthropic' &&
    toolTurnLacksOwnReasoning(request, 'anthropic')
  ) {
    return {
      fits: false,
      message: 'thinking is on and the tool-calling turn has no thinking of this provider kind to send back',
    };
  }
  return { fits: true };
}
