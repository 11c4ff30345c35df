// Input and output of the provider-attempt activity. Types only; shared with workflow code.
import type { RelayTarget } from '../config/relay';
import type { GenerationRequest } from '../config/request';
import type { ResolvedTarget } from '../config/resolved-route';
import type { BreakerPolicy } from '../config/route';
import type { ReservationRefusal } from '../routing/ledger-state';
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
  /** Set by `attemptTarget`: whether its worker already charged the ledger and told the breaker. */
  readonly settled?: boolean;
  readonly reported?: boolean;
  readonly breakerProbeAtMs?: number;
  /**
   * The caller already holds output of this call (this attempt's, pushed to the gateway's relay, or an earlier
   * one's): the call must not fail over, or a second model's text would follow the first. The same flag is the
   * attempt's heartbeat detail, for a worker lost mid-stream.
   */
  readonly outputDelivered?: true;
}

/**
 * What an attempt's heartbeats carry, so the workflow can read from a lost attempt's last heartbeat what it did:
 * whether it may have sent its request, and whether output reached the caller.
 */
export interface AttemptHeartbeatDetails {
  /** The attempt was about to send (or sent) its request; recorded and acknowledged before it sends anything. */
  readonly sending?: true;
  /** Output already reached the gateway's caller (see {@link AttemptFailureDetails.outputDelivered}). */
  readonly outputDelivered?: true;
  /**
   * The attempt's whole answer, recorded before it went to the gateway's caller ahead of the call's record: a
   * call whose attempt is lost after this ends with this answer, as its caller already has it.
   */
  readonly answered?: AttemptSuccess;
}

/**
 * What an attempt needs to hand its answer to a gateway ahead of the call's record (a relay with `answer`): the
 * record's figures that do not depend on this attempt.
 */
export interface AnswerHandoff {
  /** The route's name, as the record holds it. */
  readonly route: string;
  /** Requests this call made before this attempt: the record's `fallbacks` when this attempt answers. */
  readonly requestsBefore: number;
  /** What the call's earlier attempts cost, in nano-USD. */
  readonly costBeforeNanoUsd: number;
  /** When the call's first attempt started, epoch milliseconds; absent when this attempt is the first. */
  readonly firstStartedAtMs?: number;
}

/** What an attempt's worker settles on its own, so that a healthy call costs its workflow no further step. */
export interface AttemptSettlement {
  /** The ledger has been charged (or released) for this attempt; false or absent: the workflow must do it. */
  readonly settled?: boolean;
  /** The breaker has heard what it needed to of this attempt; false or absent: the workflow must report. */
  readonly reported?: boolean;
  /** After this attempt the target's breaker is open for the route until this epoch millisecond (may probe then). */
  readonly breakerProbeAtMs?: number;
}

/** The reservation an attempt makes on its budget scope's ledger before it sends anything. */
export interface AttemptReservation {
  readonly scope: string;
  readonly reservationId: string;
  /** The attempt's worst-case bound, in nano-USD. */
  readonly amountNanoUsd: number;
  /** How long the ledger keeps the reservation open before charging it in full, in milliseconds. */
  readonly leaseMs: number;
  /** The routed call's workflow id, shown to operators beside the reservation. */
  readonly holder: string;
}

/** The breaker admission an attempt carries, so that its worker can report the outcome itself. */
export interface AttemptBreakerTicket {
  readonly provider: string;
  readonly model: string;
  readonly policy: BreakerPolicy;
  readonly caller: string;
  /** This attempt holds the half-open probe: its outcome always reaches the entity. */
  readonly probe: boolean;
}

/**
 * Input of `attemptTarget`: one admitted attempt that reserves its bound, calls the provider, then charges
 * the ledger and tells the breaker, all in its own worker.
 */
export interface TargetAttemptInput extends AttemptInput {
  /** The attempt's worst-case bound, in nano-USD: charged when the request went out and usage is unknown. */
  readonly boundNanoUsd: number;
  /** Absent when the call names no budget scope. */
  readonly reservation?: AttemptReservation;
  readonly breaker: AttemptBreakerTicket;
  /** Hand the answer to the relay before the call's record (a relay with `answer`). @default not handed */
  readonly handoff?: AnswerHandoff;
}

/** An attempt that sent nothing: its reservation was refused, or came too late to leave the provider any time. */
export interface TargetAttemptRefusal extends AttemptSettlement {
  readonly refused: true;
  /** The ledger's numbers; absent when the ledger could not be reached, or when it granted too late. */
  readonly decision?: ReservationRefusal;
  /** The reservation was granted (and given back) after the attempt's time had run out. */
  readonly tooLate?: true;
}

export type TargetAttemptResult =
  | (AttemptSuccess &
      AttemptSettlement & {
        readonly refused?: undefined;
        /** The answer went to the gateway's caller ahead of the record (or may have): it is the call's answer. */
        readonly handedOver?: true;
      })
  | TargetAttemptRefusal;
