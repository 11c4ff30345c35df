// A rate limit's Retry-After as a pause of the breaker, shared by every route: the pure rule, with no server.
import { BreakerOutcome, initialBreakerState, type BreakerState } from '../../../src/routing/breaker-state';
import { admit } from '../../../src/routing/breaker-admission';
import { readBreakerState, type LegacyBreakerState } from '../../../src/routing/breaker-migration';
import { recordOutcome, resetBreaker } from '../../../src/routing/breaker-transitions';
import {
  MAX_RETRY_AFTER_PAUSE_MS,
  MIN_RETRY_AFTER_PAUSE_MS,
  pausedSkipMessage,
  pausedUntil,
  pausesTarget,
  reportedRetryAfterMs,
  retryAfterPauseMs,
} from '../../../src/routing/breaker-pause';
import type { FailureClass } from '../../../src/config/failure-class';

const T0 = Date.parse('2025-01-01T00:00:00Z');
/** Route A trips after 3 failures; route B (another route on the same target) only after 10. */
const routeA = { failureThreshold: 3, cooldownMs: 30_000 };
const routeB = { failureThreshold: 10, cooldownMs: 5_000 };

function ask(state: BreakerState, caller: string, nowMs: number, policy = routeB, force = false) {
  return admit(state, { nowMs, policy, caller, probeLeaseMs: 500, ...(force ? { force } : {}) });
}

function rateLimited(
  state: BreakerState,
  nowMs: number,
  retryAfterMs: number | undefined,
  failureClass: FailureClass = 'rate_limited',
  caller = 'a#1',
) {
  return recordOutcome(state, {
    nowMs,
    policy: routeA,
    caller,
    outcome: BreakerOutcome.countedFailure,
    failureClass,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

describe('how long a Retry-After pauses', () => {
  test('clamped to 1–60 s: 0 and sub-second values pause a second, absurd ones a minute', () => {
    expect(retryAfterPauseMs(5_000)).toBe(5_000);
    expect(retryAfterPauseMs(0)).toBe(MIN_RETRY_AFTER_PAUSE_MS);
    expect(retryAfterPauseMs(250)).toBe(1_000);
    expect(retryAfterPauseMs(1_000.2)).toBe(1_001);
    expect(retryAfterPauseMs(60_000)).toBe(60_000);
    expect(retryAfterPauseMs(3_600_000)).toBe(MAX_RETRY_AFTER_PAUSE_MS);
    expect(retryAfterPauseMs(Number.POSITIVE_INFINITY)).toBe(60_000);
    expect(retryAfterPauseMs(Number.NaN)).toBe(60_000);
  });

  test('only a rate limit with a Retry-After pauses', () => {
    expect(pausesTarget('rate_limited', 5_000)).toBe(true);
    expect(pausesTarget('rate_limited', 0)).toBe(true);
    expect(pausesTarget('rate_limited', undefined)).toBe(false);
    expect(pausesTarget('rate_limited', null)).toBe(false);
    expect(pausesTarget('rate_limited', Number.NaN)).toBe(false);
    expect(pausesTarget('unavailable', 5_000)).toBe(false);
    expect(pausesTarget('quota_exhausted', 5_000)).toBe(false);
    expect(pausesTarget(undefined, 5_000)).toBe(false);
  });

  test('a report carries a finite Retry-After (JSON has no Infinity)', () => {
    expect(reportedRetryAfterMs(5_000)).toBe(5_000);
    expect(reportedRetryAfterMs(Number.POSITIVE_INFINITY)).toBe(MAX_RETRY_AFTER_PAUSE_MS);
  });
});

describe('a 429 with Retry-After on one route', () => {
  test('pauses the target for every route for that long, though the breaker stays closed', () => {
    const { state, changed } = rateLimited(initialBreakerState(), T0, 5_000);
    expect(changed).toBe(true);
    expect(state).toMatchObject({ status: 'closed', consecutiveFailures: 1, pausedUntilMs: T0 + 5_000 });
    // Route B, far below its own threshold, is refused too, with the pause's end as its retry time.
    expect(ask(state, 'b#1', T0 + 1)).toEqual({
      decision: 'deny',
      retryAtMs: T0 + 5_000,
      paused: true,
      state,
      changed: false,
    });
    expect(ask(state, 'a#2', T0 + 4_999, routeA).decision).toBe('deny');
    // Once it ends, both call it again; nothing had to change for that.
    expect(ask(state, 'b#2', T0 + 5_000)).toMatchObject({ decision: 'allow', changed: false });
    expect(pausedUntil(state, T0 + 4_999)).toBe(T0 + 5_000);
    expect(pausedUntil(state, T0 + 5_000)).toBeUndefined();
  });

  test('the pause is logged with who set it and until when; the status is kept', () => {
    const { state } = rateLimited(initialBreakerState(), T0, 5_000);
    expect(state.transitions).toEqual([
      {
        from: 'closed',
        to: 'closed',
        reason: 'retry_after',
        at: new Date(T0).toISOString(),
        by: 'a#1',
        detail: `rate limited with Retry-After 5000 ms: every route skips it for 5 s, until ${new Date(T0 + 5_000).toISOString()}`,
      },
    ]);
    expect(pausedSkipMessage(T0 + 5_000)).toBe(
      `paused by the provider's Retry-After until ${new Date(T0 + 5_000).toISOString()}`,
    );
  });

  test('Retry-After 0 pauses a second; an absurd one never more than 60 s from the report', () => {
    expect(rateLimited(initialBreakerState(), T0, 0).state.pausedUntilMs).toBe(T0 + 1_000);
    expect(rateLimited(initialBreakerState(), T0, 86_400_000).state.pausedUntilMs).toBe(T0 + 60_000);
  });

  test('the pause runs from when the reporter saw the failure, however late the entity applies it', () => {
    const late = recordOutcome(initialBreakerState(), {
      nowMs: T0 + 3_000,
      policy: routeA,
      caller: 'a#1',
      outcome: BreakerOutcome.countedFailure,
      failureClass: 'rate_limited',
      retryAfterMs: 5_000,
      failedAtMs: T0,
    }).state;
    expect(late.pausedUntilMs).toBe(T0 + 5_000);
    // Applied after the pause would have ended: counted, but nothing is paused.
    const tooLate = recordOutcome(initialBreakerState(), {
      nowMs: T0 + 6_000,
      policy: routeA,
      caller: 'a#1',
      outcome: BreakerOutcome.countedFailure,
      failureClass: 'rate_limited',
      retryAfterMs: 5_000,
      failedAtMs: T0,
    }).state;
    expect(tooLate).toMatchObject({ consecutiveFailures: 1, transitions: [] });
    expect(tooLate.pausedUntilMs).toBeUndefined();
    // A failure time ahead of the entity's clock (another machine's) counts from the entity's now: never
    // more than 60 s ahead of it.
    const ahead = recordOutcome(initialBreakerState(), {
      nowMs: T0,
      policy: routeA,
      caller: 'a#1',
      outcome: BreakerOutcome.countedFailure,
      failureClass: 'rate_limited',
      retryAfterMs: 3_600_000,
      failedAtMs: T0 + 3_600_000,
    }).state;
    expect(ahead.pausedUntilMs).toBe(T0 + MAX_RETRY_AFTER_PAUSE_MS);
  });

  test('a later, shorter pause does not shorten a running one; a later, longer one extends it', () => {
    const first = rateLimited(initialBreakerState(), T0, 30_000).state;
    const shorter = rateLimited(first, T0 + 1_000, 2_000, 'rate_limited', 'c#1').state;
    expect(shorter.pausedUntilMs).toBe(T0 + 30_000);
    expect(shorter.transitions.filter((move) => move.reason === 'retry_after')).toHaveLength(1);
    const longer = rateLimited(first, T0 + 20_000, 60_000, 'rate_limited', 'd#1').state;
    expect(longer.pausedUntilMs).toBe(T0 + 80_000);
    expect(longer.pausedUntilMs! - (T0 + 20_000)).toBeLessThanOrEqual(MAX_RETRY_AFTER_PAUSE_MS);
    expect(longer.transitions).toHaveLength(1);
    // Once a pause has ended, the next one is a new pause, logged again.
    const again = rateLimited(first, T0 + 31_000, 1_000, 'rate_limited', 'e#1').state;
    expect(again.pausedUntilMs).toBe(T0 + 32_000);
    expect(again.transitions.filter((move) => move.reason === 'retry_after')).toHaveLength(2);
  });

  test('without a Retry-After (or on another class) nothing is paused: today’s counting only', () => {
    const plain = rateLimited(initialBreakerState(), T0, undefined).state;
    expect(plain.pausedUntilMs).toBeUndefined();
    expect(plain.transitions).toEqual([]);
    expect(ask(plain, 'b#1', T0 + 1).decision).toBe('allow');
    const unavailable = rateLimited(initialBreakerState(), T0, 5_000, 'unavailable').state;
    expect(unavailable.pausedUntilMs).toBeUndefined();
  });

  test('the failure still counts on the streak and can open the breaker as before', () => {
    let state = initialBreakerState();
    for (let index = 0; index < 3; index += 1)
      state = rateLimited(state, T0 + index, 2_000, 'rate_limited', `a${index}#1`).state;
    expect(state).toMatchObject({ status: 'open', consecutiveFailures: 3, pausedUntilMs: T0 + 2 + 2_000 });
    // The first rate limit starts the pause (logged); the next ones only extend it.
    expect(state.transitions.map((move) => move.reason)).toEqual(['retry_after', 'failure_threshold']);
    // Open for route A beyond the pause: after the pause, its cooldown still denies it.
    expect(ask(state, 'a#9', T0 + 3_000, routeA)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 2 + 30_000,
    });
    expect(ask(state, 'a#9', T0 + 3_000, routeA).paused).toBeUndefined();
  });

  test('a forced probe (probe_first) does not break a pause', () => {
    const { state } = rateLimited(initialBreakerState(), T0, 5_000);
    expect(ask(state, 'b#1', T0 + 1, routeB, true)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 5_000,
      paused: true,
    });
  });

  test('a probe holder asking again keeps its probe (a retried local activity), others wait for the pause', () => {
    let state = initialBreakerState();
    for (let index = 0; index < 3; index += 1)
      state = rateLimited(state, T0 + index, undefined, 'rate_limited', `a${index}#1`).state;
    const probe = ask(state, 'p#1', T0 + 40_000, routeA);
    expect(probe.decision).toBe('probe');
    const pausedByOther = rateLimited(probe.state, T0 + 40_001, 5_000, 'rate_limited', 'x#1').state;
    expect(ask(pausedByOther, 'p#1', T0 + 40_002, routeA).decision).toBe('probe');
    expect(ask(pausedByOther, 'q#1', T0 + 40_002, routeA)).toMatchObject({ decision: 'deny', paused: true });
  });

  test('an operator reset ends the pause', () => {
    const { state } = rateLimited(initialBreakerState(), T0, 30_000);
    const reset = resetBreaker(state, { nowMs: T0 + 1, by: 'ops' });
    expect(reset.pausedUntilMs).toBeUndefined();
    expect(ask(reset, 'b#1', T0 + 2).decision).toBe('allow');
  });
});

describe('states from before pauses existed', () => {
  test('a current-shape state without the field reads as never paused, and can be paused', () => {
    const old: BreakerState = initialBreakerState();
    expect('pausedUntilMs' in old).toBe(false);
    expect(readBreakerState(old)).toBe(old);
    expect(ask(old, 'b#1', T0).decision).toBe('allow');
    expect(rateLimited(old, T0, 5_000).state.pausedUntilMs).toBe(T0 + 5_000);
  });

  test('a legacy state is migrated with no pause, and a report without retryAfterMs pauses nothing', () => {
    const legacy: LegacyBreakerState = {
      status: 'closed',
      consecutiveFailures: 1,
      lastFailureAtMs: T0,
      transitions: [],
      counts: {
        countedFailures: 1,
        openings: 0,
        probesGranted: 0,
        probesSucceeded: 0,
        probesFailed: 0,
        probeLeasesExpired: 0,
        probesReleased: 0,
        resets: 0,
      },
    };
    expect(readBreakerState(legacy).pausedUntilMs).toBeUndefined();
    const after = recordOutcome(legacy, {
      nowMs: T0 + 1,
      policy: routeA,
      caller: 'a#1',
      outcome: BreakerOutcome.countedFailure,
      failureClass: 'rate_limited',
    }).state;
    expect(after.pausedUntilMs).toBeUndefined();
    expect(JSON.parse(JSON.stringify(rateLimited(after, T0 + 2, 5_000).state))).toMatchObject({
      pausedUntilMs: T0 + 5_002,
    });
  });
});
