// A routed call's clock: its whole-call deadline and its patience, read against workflow time. Workflow code.
import type { ResolvedRoute } from '../../config/resolved-route';
import type { RoutedCallInput } from '../../config/routed-call-input';

/** Below this many milliseconds left before the call's deadline, no further attempt is started. */
export const MIN_ATTEMPT_MS = 250;

/**
 * When the call must end and how long it may wait out an outage. Both start at construction, in workflow
 * time (`Date.now()` is deterministic in workflow code).
 */
export class CallClock {
  /** Epoch milliseconds of the whole-call deadline: the tighter of the route's and the call's. */
  readonly deadlineAtMs: number | undefined;
  /** Epoch milliseconds when the call stops waiting for an outage to end. */
  readonly patienceEndsAtMs: number | undefined;

  constructor(route: ResolvedRoute, input: RoutedCallInput) {
    const deadlines = [route.deadlineMs, input.deadlineMs].filter(
      (value): value is number => value !== undefined,
    );
    this.deadlineAtMs = deadlines.length ? Date.now() + Math.min(...deadlines) : undefined;
    this.patienceEndsAtMs = input.patienceMs ? Date.now() + input.patienceMs : undefined;
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
