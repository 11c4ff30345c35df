// What a routed call's request comes to on each target of its route: the prompt bound and the worst-case cost
// of one attempt. Pure; workflow code.
import { conversationTraits, type ConversationTraits } from '../../config/conversation';
import type { GenerationRequest } from '../../config/request';
import type { ResolvedRoute } from '../../config/resolved-route';
import { estimateInputTokens } from '../../routing/estimate-tokens';
import { targetInputBound, type TargetInputBound } from '../../routing/media-bounds';
import { attemptBound, type NanoUsd } from '../../routing/money';

export class CallBounds {
  /** The prompt's text bound (`estimateInputTokens`), in tokens; images and documents are added per target. */
  readonly inputTokens: number;
  readonly traits: ConversationTraits;

  constructor(
    private readonly route: ResolvedRoute,
    private readonly request: GenerationRequest,
  ) {
    this.inputTokens = estimateInputTokens(request);
    this.traits = conversationTraits(request);
  }

  /** The prompt bound on one target: the text bound plus its images and documents at their worst there. */
  targetInput(targetIndex: number): TargetInputBound {
    return targetInputBound(this.route.targets[targetIndex]!, this.inputTokens, this.traits);
  }

  /** The worst-case cost of one attempt on the target, in nano-USD: what is reserved and checked against limits. */
  attemptNanoUsd(targetIndex: number): NanoUsd {
    const target = this.route.targets[targetIndex]!;
    return attemptBound(
      target.prices,
      this.targetInput(targetIndex).tokens,
      this.request.maxOutputTokens,
      this.traits.cacheTtl,
    );
  }
}
