// The per-attempt step of a routed call: what differs between the two routed-call workflows. Workflow code.
//
// RouteWalk holds the walk (order, skips, deadline, failover, the record) and asks its step for each attempt:
// - FirstGenerationStep (routedCallWorkflow, kept so that calls started under it finish and replay): the
//   workflow reserves on the ledger, runs the provider call, then settles and reports itself.
// - LeanStep (routedCallV2Workflow, what clients start): one activity per attempt reserves, calls, settles and
//   reports by itself; the workflow settles only what that activity could not.
// Every method may issue commands (activities, signals, patch markers, search-attribute upserts) whose order is
// in recorded histories: the walk calls them in a fixed order, and a step must not add, drop or reorder one.
import type { ResolvedRoute, ResolvedTarget } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';
import type { ConversationTraits } from '../../config/conversation';
import type { FailureClass } from '../../config/failure-class';
import type { GenerationRequest } from '../../config/request';
import type { AttemptCharge } from '../../routing/attempt-cost';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import type { AttemptPass, GateDecision, GateRequest } from './attempt-gates';
import type { AttemptLog } from './attempt-log';
import type { CallClock } from './call-clock';
import type { ProviderAttemptInput, ProviderAttemptOutcome, RefusedAttempt } from './provider-attempt';
import type { RoundSkips, Screening } from './round-skips';

/** A target as the step sees it before its breaker is asked. */
export interface TargetToScreen {
  readonly target: ResolvedTarget;
  readonly request: GenerationRequest;
  readonly traits: ConversationTraits;
  /** The prompt bound on this target, images and documents included, in tokens. */
  readonly fitTokens: number;
}

/** What a round's outage tells of when the next round may start (see `nextRoundAt`). */
export interface RoundView {
  /** When breakers of the route will offer a probe, in epoch milliseconds. */
  readonly probeAtMs: readonly number[];
  /** Whether some target failed this round with its breaker still closed; absent when the step cannot tell. */
  readonly someTargetClosed?: boolean;
}

/** An attempt's outcome: its answer or failure, or (on the lean step) its reservation refused. */
export type StepOutcome = ProviderAttemptOutcome | RefusedAttempt;

/** How an admitted attempt ended, for its settle: the ledger's charge and the breaker's outcome. */
export interface SettleOutcome {
  readonly succeeded: boolean;
  readonly failureClass?: FailureClass;
  readonly charge: AttemptCharge;
  /** A rate limit's `Retry-After`, in milliseconds: the breaker pauses the target for every route. */
  readonly retryAfterMs?: number;
}

/** What the attempt's own worker already did of the settle (absent: the workflow does it). */
export interface SettledByAttempt {
  readonly settled?: boolean;
  readonly reported?: boolean;
}

export interface AttemptStep {
  /**
   * The call's deadline and patience. Called once, first: the first generation may write the
   * `clock-from-call-start` patch marker here.
   */
  startClock(route: ResolvedRoute, input: RoutedCallInput): CallClock;
  /** The call's record. Called once, after {@link startClock}: it may upsert the opening search attributes. */
  openLog(route: ResolvedRoute): AttemptLog;
  /** A reason to pass over this target before its breaker is asked, or undefined to ask it. */
  screen(candidate: TargetToScreen): Screening | undefined;
  /** Asks the breaker and the budget whether the planned attempt may run; a refusal is a skip. */
  admit(planned: PlannedAttempt, request: GateRequest): Promise<GateDecision>;
  /**
   * Whether the call ends `DeadlineExceeded` because admission took the rest of its deadline. Asked only when it
   * did; the first generation writes the `deadline-after-admission` marker when it says yes.
   */
  stopsWhenAdmissionOutlivesDeadline(): boolean;
  /** Gives back what admission took (a probe, a reservation) for an attempt that will not run. */
  withdraw(pass: AttemptPass): Promise<void>;
  /** Runs the admitted attempt: one activity. */
  run(input: ProviderAttemptInput, pass: AttemptPass): Promise<StepOutcome>;
  /** Charges the ledger and tells the breaker what the attempt's worker did not (`done`). */
  settle(pass: AttemptPass, outcome: SettleOutcome, done: SettledByAttempt): Promise<void>;
  /** What this round's skips and failures tell of when the next round may start. */
  roundView(skips: RoundSkips): RoundView;
}
