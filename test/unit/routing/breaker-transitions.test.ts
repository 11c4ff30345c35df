// The breaker state machine of the breaker design, step by step, with no server.
import {
  BreakerOutcome,
  breakerOutcomeOf,
  breakerKey,
  initialBreakerState,
  MAX_BREAKER_TRANSITIONS,
  parseBreakerKey,
  type BreakerState,
} from '../../../src/routing/breaker-state';
import { admit, type AdmitRequest } from '../../../src/routing/breaker-admission';
import { recordOutcome, resetBreaker } from '../../../src/routing/breaker-transitions';
import {
  ALL_FAILURE_CLASSES,
  FAILURE_CLASS_RULES,
  type FailureClass,
} from '../../../src/config/failure-class';

const policy = { failureThreshold: 3, cooldownMs: 1_000 };
const T0 = Date.parse('2025-01-01T00:00:00Z');

function ask(state: BreakerState, caller: string, nowMs: number, extra: Partial<AdmitRequest> = {}) {
  return admit(state, { nowMs, policy, caller, probeLeaseMs: 500, ...extra });
}

function fail(
  state: BreakerState,
  caller: string,
  nowMs: number,
  failureClass: FailureClass = 'unavailable',
  reportPolicy = policy,
) {
  return recordOutcome(state, {
    nowMs,
    policy: reportPolicy,
    caller,
    outcome: BreakerOutcome.countedFailure,
    failureClass,
  }).state;
}

function succeed(state: BreakerState, caller: string, nowMs: number) {
  return recordOutcome(state, { nowMs, policy, caller, outcome: BreakerOutcome.success }).state;
}

/** Fails `n` times from distinct callers, one millisecond apart. */
function failTimes(state: BreakerState, n: number, startMs = T0, reportPolicy = policy): BreakerState {
  let current = state;
  for (let index = 0; index < n; index += 1)
    current = fail(current, `call-${index}#1`, startMs + index, 'unavailable', reportPolicy);
  return current;
}

/** An open breaker that opened at T0 + 2 (three failures at T0, T0+1, T0+2). */
const openAtT2 = () => failTimes(initialBreakerState(), 3);
/** A half-open breaker whose probe `probe#1` was granted at T0 + 2000 with a 500 ms lease. */
function halfOpen(): BreakerState {
  const admission = ask(openAtT2(), 'probe#1', T0 + 2_000);
  expect(admission.decision).toBe('probe');
  return admission.state;
}

describe('outcomes of the failure-class table', () => {
  test('only the classes that count on the breaker are counted failures; cancelled is its own outcome', () => {
    for (const failureClass of ALL_FAILURE_CLASSES) {
      const expected =
        failureClass === 'cancelled'
          ? 'cancelled'
          : FAILURE_CLASS_RULES[failureClass].countsOnBreaker
            ? 'counted_failure'
            : 'neutral';
      expect([failureClass, breakerOutcomeOf(false, failureClass)]).toEqual([failureClass, expected]);
    }
    expect(breakerOutcomeOf(true)).toBe('success');
    expect(breakerOutcomeOf(false, 'rate_limited')).toBe('counted_failure');
    expect(breakerOutcomeOf(false, 'invalid_request')).toBe('neutral');
  });

  test('keys are provider/model and split at the first slash', () => {
    expect(breakerKey('together', 'meta-llama/Llama-3')).toBe('together/meta-llama/Llama-3');
    expect(parseBreakerKey('together/meta-llama/Llama-3')).toEqual({
      provider: 'together',
      model: 'meta-llama/Llama-3',
    });
    expect(parseBreakerKey('openai')).toBeUndefined();
    expect(parseBreakerKey('/gpt')).toBeUndefined();
    expect(parseBreakerKey('openai/')).toBeUndefined();
  });
});

describe('closed', () => {
  test('admits without changing anything', () => {
    const state = initialBreakerState();
    const admission = ask(state, 'a#1', T0);
    expect(admission).toEqual({ decision: 'allow', state, changed: false });
  });

  test('opens after exactly failureThreshold consecutive counted failures', () => {
    const two = failTimes(initialBreakerState(), 2);
    expect(two.status).toBe('closed');
    expect(two.consecutiveFailures).toBe(2);
    expect(ask(two, 'x#1', T0 + 5).decision).toBe('allow');

    const three = fail(two, 'c#1', T0 + 10, 'rate_limited');
    expect(three).toMatchObject({
      status: 'open',
      consecutiveFailures: 3,
      openedAtMs: T0 + 10,
      reopenAtMs: T0 + 10 + policy.cooldownMs,
      lastFailureClass: 'rate_limited',
    });
    expect(three.transitions).toEqual([
      expect.objectContaining({
        from: 'closed',
        to: 'open',
        reason: 'failure_threshold',
        by: 'c#1',
        at: new Date(T0 + 10).toISOString(),
      }),
    ]);
    expect(three.counts).toMatchObject({ countedFailures: 3, openings: 1 });
  });

  test('a success ends the streak, so failures must be consecutive', () => {
    let state = failTimes(initialBreakerState(), 2);
    const reset = recordOutcome(state, { nowMs: T0 + 5, policy, caller: 's#1', outcome: 'success' });
    expect(reset.changed).toBe(true);
    state = fail(fail(reset.state, 'd#1', T0 + 6), 'e#1', T0 + 7);
    expect(state).toMatchObject({ status: 'closed', consecutiveFailures: 2 });
  });

  test('non-counted classes never open it, and show the provider answered', () => {
    let state = initialBreakerState();
    for (const failureClass of [
      'invalid_request',
      'context_overflow',
      'content_policy',
      'refused',
    ] as const) {
      for (let index = 0; index < 5; index += 1) {
        state = recordOutcome(state, {
          nowMs: T0,
          policy,
          caller: `n${index}#1`,
          outcome: breakerOutcomeOf(false, failureClass),
          failureClass,
        }).state;
      }
    }
    expect(state).toEqual(initialBreakerState());
    // Between counted failures, an answered request ends the streak like a success.
    state = failTimes(state, 2);
    state = recordOutcome(state, {
      nowMs: T0 + 3,
      policy,
      caller: 'n#1',
      outcome: 'neutral',
      failureClass: 'invalid_request',
    }).state;
    expect(state.consecutiveFailures).toBe(0);
  });

  test('cancellations neither count nor end a streak', () => {
    const two = failTimes(initialBreakerState(), 2);
    const result = recordOutcome(two, {
      nowMs: T0 + 5,
      policy,
      caller: 'x#1',
      outcome: 'cancelled',
      failureClass: 'cancelled',
    });
    expect(result).toEqual({ state: two, changed: false });
  });

  test('a healthy success on a clean breaker changes nothing (so it need not be reported)', () => {
    const state = initialBreakerState();
    expect(recordOutcome(state, { nowMs: T0, policy, caller: 'a#1', outcome: 'success' })).toEqual({
      state,
      changed: false,
    });
  });
});

describe('open', () => {
  test('denies until the cooldown has passed, with the time it ends', () => {
    const state = openAtT2();
    const early = ask(state, 'x#1', T0 + 2 + 999);
    expect(early).toEqual({ decision: 'deny', retryAtMs: T0 + 2 + 1_000, state, changed: false });
  });

  test('after the cooldown the first asker takes the probe and the breaker goes half-open', () => {
    const admission = ask(openAtT2(), 'p#1', T0 + 2 + 1_000);
    expect(admission.decision).toBe('probe');
    expect(admission.changed).toBe(true);
    expect(admission.state.status).toBe('half_open');
    expect(admission.state.probe).toEqual({
      holder: 'p#1',
      grantedAtMs: T0 + 1_002,
      leaseExpiresAtMs: T0 + 1_502,
    });
    expect(admission.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'half_open',
      reason: 'cooldown_elapsed',
      by: 'p#1',
    });
    expect(admission.state.counts.probesGranted).toBe(1);
  });

  test('the cooldown is the asking route’s', () => {
    const state = openAtT2();
    const patient = { failureThreshold: 3, cooldownMs: 60_000 };
    const eager = { failureThreshold: 3, cooldownMs: 100 };
    expect(
      admit(state, { nowMs: T0 + 500, policy: patient, caller: 'a#1', probeLeaseMs: 500 }),
    ).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 2 + 60_000,
    });
    expect(admit(state, { nowMs: T0 + 500, policy: eager, caller: 'b#1', probeLeaseMs: 500 }).decision).toBe(
      'probe',
    );
  });

  test('force takes the probe before the cooldown (all targets open, probe_first)', () => {
    const admission = ask(openAtT2(), 'f#1', T0 + 10, { force: true });
    expect(admission.decision).toBe('probe');
    expect(admission.state.transitions.at(-1)).toMatchObject({ reason: 'probe_forced' });
  });

  test('late reports from calls admitted before it opened do not move it, but failures are counted', () => {
    const state = openAtT2();
    expect(succeed(state, 'late#1', T0 + 50)).toBe(state);
    const failed = fail(state, 'late#2', T0 + 60);
    expect(failed).toMatchObject({ status: 'open', consecutiveFailures: 4, openedAtMs: T0 + 2 });
  });
});

describe('half-open', () => {
  test('exactly one of many askers gets the probe', () => {
    let state = openAtT2();
    const decisions: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      const admission = ask(state, `c${index}#1`, T0 + 2_000 + index);
      decisions.push(admission.decision);
      state = admission.state;
    }
    expect(decisions.filter((decision) => decision === 'probe')).toHaveLength(1);
    expect(decisions[0]).toBe('probe');
    expect(decisions.slice(1).every((decision) => decision === 'deny')).toBe(true);
  });

  test('others are denied until the lease expires, with the expiry as the retry time', () => {
    const state = halfOpen();
    expect(ask(state, 'other#1', T0 + 2_100)).toEqual({
      decision: 'deny',
      retryAtMs: T0 + 2_500,
      state,
      changed: false,
    });
  });

  test('the holder asking again keeps its probe (a retried local activity)', () => {
    const state = halfOpen();
    expect(ask(state, 'probe#1', T0 + 2_100)).toEqual({ decision: 'probe', state, changed: false });
  });

  test('force never takes a probe someone else holds', () => {
    expect(ask(halfOpen(), 'f#1', T0 + 2_100, { force: true }).decision).toBe('deny');
  });

  test('an expired lease lets the next asker probe: a lost probe cannot wedge the breaker', () => {
    const admission = ask(halfOpen(), 'next#1', T0 + 2_500);
    expect(admission.decision).toBe('probe');
    expect(admission.state.probe?.holder).toBe('next#1');
    expect(admission.state.transitions.at(-1)).toMatchObject({
      from: 'half_open',
      to: 'half_open',
      reason: 'probe_lease_expired',
    });
    expect(admission.state.counts).toMatchObject({ probesGranted: 2, probeLeasesExpired: 1 });
  });

  test('probe success closes and clears the streak', () => {
    const closed = succeed(halfOpen(), 'probe#1', T0 + 2_200);
    expect(closed).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(closed.probe).toBeUndefined();
    expect(closed.openedAtMs).toBeUndefined();
    expect(closed.transitions.at(-1)).toMatchObject({
      from: 'half_open',
      to: 'closed',
      reason: 'probe_succeeded',
    });
    expect(closed.counts.probesSucceeded).toBe(1);
    expect(ask(closed, 'after#1', T0 + 2_300).decision).toBe('allow');
  });

  test('a non-counted class from the probe (the provider answered) also closes', () => {
    const result = recordOutcome(halfOpen(), {
      nowMs: T0 + 2_200,
      policy,
      caller: 'probe#1',
      outcome: 'neutral',
      failureClass: 'context_overflow',
    });
    expect(result.state.status).toBe('closed');
  });

  test('probe failure reopens with a fresh cooldown from the failure', () => {
    const reopened = fail(halfOpen(), 'probe#1', T0 + 2_300, 'timeout');
    expect(reopened).toMatchObject({
      status: 'open',
      openedAtMs: T0 + 2_300,
      reopenAtMs: T0 + 3_300,
      consecutiveFailures: 4,
    });
    expect(reopened.probe).toBeUndefined();
    expect(reopened.transitions.at(-1)).toMatchObject({
      from: 'half_open',
      to: 'open',
      reason: 'probe_failed',
    });
    expect(reopened.counts).toMatchObject({ probesFailed: 1, openings: 2 });
    expect(ask(reopened, 'x#1', T0 + 3_299).decision).toBe('deny');
    expect(ask(reopened, 'x#1', T0 + 3_300).decision).toBe('probe');
  });

  test('reports from anyone but the holder do not decide the probe', () => {
    const state = halfOpen();
    expect(succeed(state, 'other#1', T0 + 2_100)).toBe(state);
    const failed = fail(state, 'other#2', T0 + 2_100);
    expect(failed.status).toBe('half_open');
    expect(failed.probe?.holder).toBe('probe#1');
  });

  test('a cancelled probe releases the lease at once; the next asker probes', () => {
    const released = recordOutcome(halfOpen(), {
      nowMs: T0 + 2_100,
      policy,
      caller: 'probe#1',
      outcome: 'cancelled',
    });
    expect(released.changed).toBe(true);
    expect(released.state.status).toBe('half_open');
    expect(released.state.probe).toBeUndefined();
    expect(released.state.counts.probesReleased).toBe(1);
    const next = ask(released.state, 'next#1', T0 + 2_101);
    expect(next.decision).toBe('probe');
    expect(next.state.probe).toMatchObject({ holder: 'next#1', leaseExpiresAtMs: T0 + 2_601 });
  });
});

describe('two routes with different thresholds on one key', () => {
  const strict = { failureThreshold: 2, cooldownMs: 1_000 };
  const lenient = { failureThreshold: 5, cooldownMs: 1_000 };

  test('failures reported under the lenient route do not open it early', () => {
    const state = failTimes(initialBreakerState(), 4, T0, lenient);
    expect(state).toMatchObject({ status: 'closed', consecutiveFailures: 4 });
    expect(admit(state, { nowMs: T0 + 10, policy: lenient, caller: 'l#1', probeLeaseMs: 500 }).decision).toBe(
      'allow',
    );
  });

  test('a strict route’s failure opens it at its own threshold', () => {
    const state = failTimes(initialBreakerState(), 2, T0, strict);
    expect(state.status).toBe('open');
  });

  test('a strict route asking after lenient failures passed its threshold opens it, cooling from the last failure', () => {
    const state = failTimes(initialBreakerState(), 3, T0, lenient);
    const admission = admit(state, { nowMs: T0 + 500, policy: strict, caller: 's#1', probeLeaseMs: 500 });
    expect(admission).toMatchObject({ decision: 'deny', retryAtMs: T0 + 2 + 1_000, changed: true });
    expect(admission.state).toMatchObject({ status: 'open', openedAtMs: T0 + 2 });
    expect(admission.state.transitions.at(-1)).toMatchObject({
      from: 'closed',
      to: 'open',
      reason: 'failure_threshold',
      by: 's#1',
    });
    // Once the cooldown measured from that failure is over, the strict route probes at once.
    expect(
      admit(state, { nowMs: T0 + 2_000, policy: strict, caller: 's#2', probeLeaseMs: 500 }).decision,
    ).toBe('probe');
  });
});

describe('reset and the log', () => {
  test('reset closes from any state and is logged', () => {
    const reset = resetBreaker(halfOpen(), { nowMs: T0 + 3_000, by: 'ops', detail: 'provider fixed' });
    expect(reset).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(reset.probe).toBeUndefined();
    expect(reset.transitions.at(-1)).toEqual({
      from: 'half_open',
      to: 'closed',
      reason: 'reset',
      at: new Date(T0 + 3_000).toISOString(),
      by: 'ops',
      detail: 'provider fixed',
    });
    expect(reset.counts.resets).toBe(1);
  });

  test('the transition log keeps only the most recent entries', () => {
    let state = initialBreakerState();
    for (let index = 0; index < MAX_BREAKER_TRANSITIONS + 7; index += 1)
      state = resetBreaker(state, { nowMs: T0 + index, by: `op${index}` });
    expect(state.transitions).toHaveLength(MAX_BREAKER_TRANSITIONS);
    expect(state.transitions[0]!.by).toBe('op7');
    expect(state.transitions.at(-1)!.by).toBe(`op${MAX_BREAKER_TRANSITIONS + 6}`);
  });

  test('state is plain JSON and survives a round trip unchanged', () => {
    const state = fail(halfOpen(), 'probe#1', T0 + 2_300);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });

  test('inputs are never mutated', () => {
    const state = halfOpen();
    const copy = JSON.parse(JSON.stringify(state)) as BreakerState;
    fail(state, 'probe#1', T0 + 2_300);
    ask(state, 'next#1', T0 + 9_999);
    resetBreaker(state, { nowMs: T0, by: 'ops' });
    expect(state).toEqual(copy);
  });
});
