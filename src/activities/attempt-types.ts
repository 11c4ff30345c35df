// Input and output of the provider-attempt activity. Types only; shared with workflow code.
import type { RelayTarget } from '../config/relay';
import type { GenerationRequest } from '../config/request';
import type { ResolvedTarget } from '../config/resolved-route';
import type { GenerationResult, Usage } from '../providers/types';

export interface AttemptInput {
  readonly target: ResolvedTarget;
  readonly request: GenerationRequest;
  /** SDK timeout of this attempt, in milliseconds (the target's, shortened by the call's deadline). */
  readonly timeoutMs: number;
  readonly stream: boolean;
  /** Where to push the answer's pieces as they stream in (a gateway request). @default none */
  readonly relay?: RelayTarget;
}

export interface AttemptSuccess {
  readonly result: GenerationResult;
  /** Provider call duration measured in the worker, in milliseconds. */
  readonly latencyMs: number;
}

/** `details[0]` of the ApplicationFailure a failed attempt throws; its `type` is the failure class. */
export interface AttemptFailureDetails {
  readonly status?: number;
  readonly providerCode?: string;
  readonly retryAfterMs?: number;
  readonly requestId?: string;
  readonly requestSent: boolean;
  readonly latencyMs: number;
  /** Usage the provider reported with a failed answer (a refusal is a billed 200). */
  readonly usage?: Usage;
  /**
   * The caller already holds output of this call (this attempt's, pushed to the gateway's relay, or an earlier
   * one's): the call must not fail over, or a second model's text would follow the first. The same flag is the
   * attempt's heartbeat detail, for a worker lost mid-stream.
   */
  readonly outputDelivered?: true;
}
