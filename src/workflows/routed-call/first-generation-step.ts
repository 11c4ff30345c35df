// The first routed-call workflow's step (routedCallWorkflow): the workflow reserves, then runs the provider
// call, then settles and reports. Kept only so that calls started under it finish and replay unchanged
// (docs/decisions/0005-retiring-the-first-routed-call-workflow.md). Workflow code.
import { patched } from '@temporalio/workflow';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';
import { FailureClass } from '../../config/failure-class';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import {
  admitAttempt,
  settleAttempt,
  type AttemptPass,
  type GateDecision,
  type GateRequest,
} from './attempt-gates';
import { AttemptLog } from './attempt-log';
import type { AttemptStep, RoundView, SettledByAttempt, SettleOutcome, StepOutcome } from './attempt-step';
import { CallClock } from './call-clock';
import { runProviderAttempt, type ProviderAttemptInput } from './provider-attempt';
import type { RoundSkips, Screening } from './round-skips';

/**
 * Patch id of the deadline check between admission and attempt. Histories recorded before it never saw the
 * check, so they replay without it (the marker is written only when the check stops a call).
 */
const DEADLINE_AFTER_ADMISSION_PATCH = 'deadline-after-admission';

export class FirstGenerationStep implements AttemptStep {
  startClock(route: ResolvedRoute, input: RoutedCallInput): CallClock {
    // Its calls may predate the clock's start at the call's start: the clock decides by its patch.
    return new CallClock(route, input, { alwaysFromCallStart: false });
  }

  openLog(route: ResolvedRoute): AttemptLog {
    // Its starters did not set the route and outcome at start: the log always upserts them.
    return new AttemptLog(route, { upsertOnlyMissing: false });
  }

  /** This generation sends every target the call as it is: passing over targets came with the lean one. */
  screen(): Screening | undefined {
    return undefined;
  }

  /** The breaker, then the reservation on the ledger (a local activity), both from the workflow. */
  admit(_planned: PlannedAttempt, request: GateRequest): Promise<GateDecision> {
    return admitAttempt(request);
  }

  stopsWhenAdmissionOutlivesDeadline(): boolean {
    return patched(DEADLINE_AFTER_ADMISSION_PATCH);
  }

  withdraw(pass: AttemptPass): Promise<void> {
    return settleAttempt(
      pass,
      { succeeded: false, failureClass: FailureClass.cancelled, charge: { costNanoUsd: 0, costKnown: true } },
      { settled: false },
    );
  }

  /** The provider call only (`callProvider`): the reservation was made at admission, the settle follows. */
  run(input: ProviderAttemptInput): Promise<StepOutcome> {
    return runProviderAttempt(input);
  }

  settle(pass: AttemptPass, outcome: SettleOutcome, done: SettledByAttempt): Promise<void> {
    return settleAttempt(pass, outcome, done);
  }

  /** Only the breakers that skipped a target: this generation did not learn which ones a failure opened. */
  roundView(skips: RoundSkips): RoundView {
    return { probeAtMs: skips.circuitOpenUntilMs };
  }
}
