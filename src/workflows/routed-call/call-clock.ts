// A routed call's clock: its whole-call deadline and its patience, read against workflow time. Workflow code.
import { patched, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';

import { MIN_ATTEMPT_MS } from '../../routing/attempt-plan';

export { MIN_ATTEMPT_MS };

/**
 * Patch id of starting the clock when the call started. Before it, the clock started at the first workflow
 * task a worker ran, so a call queued for a worker, or a failed and retried first task, got its whole deadline
 * again; histories from before replay with the old start.
 */
const CLOCK_FROM_CALL_START_PATCH = 'clock-from-call-start';

/**
 * When the call must end and how long it may wait out an outage, both counted from the moment the call
 * started, so time waiting for a worker counts. That is `workflowInfo().startTime` (the start event's time):
 * `runStartTime` is the first activation's, as `Date.now()` was.
 */
export class CallClock {
  /** Epoch milliseconds of the whole-call deadline: the tighter of the route's and the call's. */
  readonly deadlineAtMs: number | undefined;
  /** Epoch milliseconds when the call stops waiting for an outage to end. */
  readonly patienceEndsAtMs: number | undefined;

  constructor(
    route: ResolvedRoute,
    input: RoutedCallInput,
    /** `alwaysFromCallStart`: a path newer than the patch, which never started the clock late. */
    options: { readonly alwaysFromCallStart?: boolean } = {},
  ) {
    const deadlines = [route.deadlineMs, input.deadlineMs].filter(
      (value): value is number => value !== undefined,
    );
    // Only a call with a deadline or patience asks, so other calls' histories get no patch marker.
    const timed = deadlines.length > 0 || Boolean(input.patienceMs);
    const fromCallStart =
      options.alwaysFromCallStart === true || (timed && patched(CLOCK_FROM_CALL_START_PATCH));
    const startedAtMs = fromCallStart ? workflowInfo().startTime.getTime() : Date.now();
    this.deadlineAtMs = deadlines.length ? startedAtMs + Math.min(...deadlines) : undefined;
    this.patienceEndsAtMs = input.patienceMs ? startedAtMs + input.patienceMs : undefined;
  }

  /** Milliseconds until the deadline (negative once passed), or undefined without one. */
  remainingMs(): number | undefined {
    return this.deadlineAtMs === undefined ? undefined : this.deadlineAtMs - Date.now();
  }

  /** Whether the deadline leaves too little time to start another attempt. */
  tooLateForAttempt(): boolean {
    const remaining = this.remainingMs();
    return remaining !== undefined && remaining < MIN_ATTEMPT_MS;
  }

  /** The latest instant an attempt may start, or undefined without a deadline. */
  lastStartAtMs(): number | undefined {
    return this.deadlineAtMs === undefined ? undefined : this.deadlineAtMs - MIN_ATTEMPT_MS;
  }

  /** Whether the call has patience and it has not run out. */
  patient(): boolean {
    return this.patienceEndsAtMs !== undefined && Date.now() < this.patienceEndsAtMs;
  }

  /** `wantedMs`, shortened so that an attempt can still start after waiting it. */
  waitBeforeAttemptMs(wantedMs: number): number {
    const remaining = this.remainingMs();
    return remaining === undefined ? wantedMs : Math.min(wantedMs, Math.max(0, remaining - MIN_ATTEMPT_MS));
  }
}
