// One breaker, many routes: the counts are shared, each route judges them by its own policy, and the
// one probe is shared. Pure state machine, no server.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BreakerPolicy } from '../../../src/config/route';
import { admit, type Admission } from '../../../src/routing/breaker-admission';
import { judgeBreaker, judgeSeenPolicies } from '../../../src/routing/breaker-judgement';
import { readBreakerState, type LegacyBreakerState } from '../../../src/routing/breaker-migration';
import {
  BREAKER_STATE_VERSION,
  BreakerOutcome,
  initialBreakerState,
  MAX_SEEN_POLICIES,
  SEEN_POLICY_TTL_MS,
  type BreakerState,
} from '../../../src/routing/breaker-state';
import { recordOutcome, resetBreaker } from '../../../src/routing/breaker-transitions';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const LEASE_MS = 500;
const strict: BreakerPolicy = { failureThreshold: 2, cooldownMs: 1_000 };
const lenient: BreakerPolicy = { failureThreshold: 5, cooldownMs: 1_000 };

function ask(
  state: BreakerState,
  policy: BreakerPolicy,
  caller: string,
  nowMs: number,
  force = false,
): Admission {
  return admit(state, { nowMs, policy, caller, probeLeaseMs: LEASE_MS, ...(force ? { force } : {}) });
}

function fail(state: BreakerState, policy: BreakerPolicy, caller: string, nowMs: number): BreakerState {
  return recordOutcome(state, {
    nowMs,
    policy,
    caller,
    outcome: BreakerOutcome.countedFailure,
    failureClass: 'unavailable',
  }).state;
}

function answer(state: BreakerState, policy: BreakerPolicy, caller: string, nowMs: number) {
  return recordOutcome(state, { nowMs, policy, caller, outcome: BreakerOutcome.success });
}

/** `n` counted failures under `policy`, from distinct callers, one millisecond apart from `startMs`. */
function failures(state: BreakerState, policy: BreakerPolicy, n: number, startMs: number): BreakerState {
  let current = state;
  for (let index = 0; index < n; index += 1)
    current = fail(current, policy, `f${policy.failureThreshold}-${startMs}-${index}#1`, startMs + index);
  return current;
}

describe('thresholds 2 and 5 on one breaker', () => {
  test('the strict route starts skipping at 2, the lenient one keeps calling until 5', () => {
    let state = failures(initialBreakerState(), strict, 2, T0);
    expect(ask(state, strict, 's#1', T0 + 10).decision).toBe('deny');
    // The bug this guards against: one route's opening made every route skip.
    expect(ask(state, lenient, 'l#1', T0 + 10)).toMatchObject({ decision: 'allow', changed: false });

    state = failures(state, lenient, 2, T0 + 20);
    expect(state.consecutiveFailures).toBe(4);
    expect(ask(state, lenient, 'l#2', T0 + 30).decision).toBe('allow');
    expect(ask(state, strict, 's#2', T0 + 30).decision).toBe('deny');

    state = fail(state, lenient, 'l#3', T0 + 40);
    expect(ask(state, lenient, 'l#4', T0 + 50)).toMatchObject({ decision: 'deny', retryAtMs: T0 + 1_040 });
  });

  test('failures from either route count towards one shared streak', () => {
    let state = initialBreakerState();
    state = fail(state, lenient, 'l#1', T0);
    expect(ask(state, strict, 's#1', T0 + 1).decision).toBe('allow');
    state = fail(state, strict, 's#1', T0 + 2);
    expect(state.consecutiveFailures).toBe(2);
    expect(ask(state, strict, 's#2', T0 + 3).decision).toBe('deny');
    expect(ask(state, lenient, 'l#2', T0 + 3).decision).toBe('allow');
  });

  test('each route’s threshold crossing is logged with its policy, and the log chains', () => {
    let state = failures(initialBreakerState(), lenient, 1, T0);
    state = failures(state, strict, 1, T0 + 10);
    state = failures(state, lenient, 3, T0 + 20);
    const crossings = state.transitions.filter((transition) => transition.reason === 'failure_threshold');
    expect(crossings).toEqual([
      expect.objectContaining({
        from: 'closed',
        to: 'open',
        policy: strict,
        at: new Date(T0 + 10).toISOString(),
      }),
      expect.objectContaining({
        from: 'open',
        to: 'open',
        policy: lenient,
        at: new Date(T0 + 22).toISOString(),
      }),
    ]);
    expect(state.counts.openings).toBe(2);
    state.transitions.forEach((transition, index) => {
      if (index > 0) expect(transition.from).toBe(state.transitions[index - 1]!.to);
    });
    expect(state.transitions.at(-1)!.to).toBe(state.status);
  });

  test('the summary status is the strictest seen policy’s judgement; each policy has its own', () => {
    // A lenient failure, then a strict one: the shared streak of 2 reaches the strict threshold at T0 + 10.
    let state = fail(fail(initialBreakerState(), lenient, 'l#1', T0), strict, 's#1', T0 + 10);
    expect(state).toMatchObject({ status: 'open', openedAtMs: T0 + 10, reopenAtMs: T0 + 1_010 });
    // A later failure moves the probe time (the cooldown runs from the last failure), not the opening.
    state = fail(state, lenient, 'l#2', T0 + 20);
    expect(state).toMatchObject({ status: 'open', openedAtMs: T0 + 10, reopenAtMs: T0 + 1_020 });
    expect(judgeSeenPolicies(state)).toEqual([
      { ...strict, lastSeenAtMs: T0 + 10, status: 'open', probeAtMs: T0 + 1_020 },
      { ...lenient, lastSeenAtMs: T0 + 20, status: 'closed' },
    ]);
  });

  test('an answer on the lenient route, which judged it closed, ends the streak for the strict route too', () => {
    const state = failures(failures(initialBreakerState(), lenient, 1, T0), strict, 2, T0 + 10);
    const answered = answer(state, lenient, 'l#9', T0 + 100);
    expect(answered.changed).toBe(true);
    expect(answered.state).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(answered.state.openedAtMs).toBeUndefined();
    expect(answered.state.streakStartedAtMs).toBeUndefined();
    expect(answered.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'closed',
      reason: 'streak_ended',
      by: 'l#9',
    });
    expect(ask(answered.state, strict, 's#9', T0 + 101).decision).toBe('allow');
  });

  test('a late answer on the strict route, admitted before its threshold, does not close it for itself', () => {
    const state = failures(initialBreakerState(), strict, 2, T0);
    expect(answer(state, strict, 'slow#1', T0 + 100)).toEqual({ state, changed: false });
  });

  test('a strict route that was never seen asks after lenient failures: it opens the summary and is remembered', () => {
    const state = failures(initialBreakerState(), lenient, 3, T0);
    expect(state.status).toBe('closed');
    const asked = ask(state, strict, 's#1', T0 + 500);
    expect(asked).toMatchObject({ decision: 'deny', retryAtMs: T0 + 2 + strict.cooldownMs, changed: true });
    expect(asked.state).toMatchObject({ status: 'open', openedAtMs: T0 + 2 });
    expect(asked.state.transitions.at(-1)).toMatchObject({ reason: 'failure_threshold', policy: strict });
    // Once remembered, asking again is decided without any change (a worker's hint needs no entity).
    expect(ask(asked.state, strict, 's#2', T0 + 600)).toMatchObject({ decision: 'deny', changed: false });
    expect(ask(asked.state, lenient, 'l#1', T0 + 600)).toMatchObject({ decision: 'allow', changed: false });
  });
});

describe('cooldowns that differ', () => {
  const quick: BreakerPolicy = { failureThreshold: 2, cooldownMs: 1_000 };
  const slow: BreakerPolicy = { failureThreshold: 2, cooldownMs: 10_000 };

  test('each route may probe after its own cooldown from the last counted failure', () => {
    let state = failures(initialBreakerState(), quick, 1, T0);
    state = fail(state, slow, 'x#1', T0 + 1);
    expect(judgeBreaker(state, quick)).toEqual({ status: 'open', probeAtMs: T0 + 1_001 });
    expect(judgeBreaker(state, slow)).toEqual({ status: 'open', probeAtMs: T0 + 10_001 });
    // The summary follows the strictest: the same threshold, the longer cooldown.
    expect(state.reopenAtMs).toBe(T0 + 10_001);

    expect(ask(state, slow, 'slow#1', T0 + 5_000)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 10_001,
    });
    const probe = ask(state, quick, 'quick#1', T0 + 5_000);
    expect(probe.decision).toBe('probe');
    expect(probe.state.transitions.at(-1)).toMatchObject({
      from: 'open',
      to: 'half_open',
      reason: 'cooldown_elapsed',
      policy: quick,
    });
  });

  test('another counted failure, from any route, restarts every route’s cooldown', () => {
    let state = failures(initialBreakerState(), quick, 2, T0);
    state = fail(state, slow, 'late#1', T0 + 800);
    expect(judgeBreaker(state, quick).probeAtMs).toBe(T0 + 1_800);
    expect(judgeBreaker(state, slow).probeAtMs).toBe(T0 + 10_800);
    expect(ask(state, quick, 'q#1', T0 + 1_500)).toMatchObject({ decision: 'deny', retryAtMs: T0 + 1_800 });
  });
});

describe('the one probe is shared across routes', () => {
  const other: BreakerPolicy = { failureThreshold: 3, cooldownMs: 200 };
  /** Strict and other both tripped (3 failures), both cooled down at T0 + 2_000; strict's caller holds the probe. */
  function probing(): BreakerState {
    const state = failures(failures(initialBreakerState(), strict, 2, T0), other, 1, T0 + 2);
    const granted = ask(state, strict, 'probe#1', T0 + 2_000);
    expect(granted.decision).toBe('probe');
    return granted.state;
  }

  test('of many askers from both routes exactly one gets the probe', () => {
    let state = failures(failures(initialBreakerState(), strict, 2, T0), other, 1, T0 + 2);
    const decisions: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const policy = index % 2 === 0 ? other : strict;
      const admission = ask(state, policy, `c${index}#1`, T0 + 2_000 + index, index % 3 === 0);
      decisions.push(admission.decision);
      state = admission.state;
    }
    expect(decisions.filter((decision) => decision === 'probe')).toEqual(['probe']);
    expect(state.counts.probesGranted).toBe(1);
  });

  test('another route is denied until the lease ends, even when forced; a route it is closed for still calls', () => {
    const state = probing();
    expect(ask(state, other, 'o#1', T0 + 2_100)).toMatchObject({ decision: 'deny', retryAtMs: T0 + 2_500 });
    expect(ask(state, other, 'o#2', T0 + 2_100, true)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 2_500,
    });
    expect(ask(state, lenient, 'l#1', T0 + 2_100)).toMatchObject({ decision: 'allow', changed: false });
  });

  test('a lost probe’s lease expires for every route: another route’s caller takes it over', () => {
    const next = ask(probing(), other, 'o#1', T0 + 2_500);
    expect(next.decision).toBe('probe');
    expect(next.state.probe?.holder).toBe('o#1');
    expect(next.state.transitions.at(-1)).toMatchObject({ reason: 'probe_lease_expired', policy: other });
  });

  test('a probe success closes the breaker for every route', () => {
    const closed = answer(probing(), strict, 'probe#1', T0 + 2_200);
    expect(closed.state).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(closed.state.probe).toBeUndefined();
    for (const policy of [strict, other, lenient])
      expect(ask(closed.state, policy, `after-${policy.failureThreshold}#1`, T0 + 2_201).decision).toBe(
        'allow',
      );
  });

  test('a probe failure restarts the cooldown for every route', () => {
    const reopened = fail(probing(), strict, 'probe#1', T0 + 2_300);
    expect(reopened).toMatchObject({ status: 'open', openedAtMs: T0 + 2_300, consecutiveFailures: 4 });
    expect(reopened.probe).toBeUndefined();
    expect(reopened.transitions.at(-1)).toMatchObject({
      from: 'half_open',
      to: 'open',
      reason: 'probe_failed',
    });
    expect(ask(reopened, other, 'o#1', T0 + 2_499)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 2_500,
    });
    expect(ask(reopened, strict, 's#1', T0 + 2_499)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 3_300,
    });
    expect(ask(reopened, other, 'o#2', T0 + 2_500).decision).toBe('probe');
  });

  test('another route’s failure while the probe is out grows the streak but leaves the probe to decide', () => {
    const state = fail(probing(), lenient, 'l#1', T0 + 2_100);
    expect(state).toMatchObject({ status: 'half_open', consecutiveFailures: 4 });
    expect(state.probe?.holder).toBe('probe#1');
    expect(answer(state, strict, 'probe#1', T0 + 2_200).state.status).toBe('closed');
  });

  test('an answer on a route it is closed for, while another route’s probe is out, closes it and frees the probe', () => {
    const closed = answer(probing(), lenient, 'l#1', T0 + 2_100);
    expect(closed.state).toMatchObject({ status: 'closed', consecutiveFailures: 0 });
    expect(closed.state.probe).toBeUndefined();
    expect(closed.state.transitions.at(-1)).toMatchObject({
      from: 'half_open',
      to: 'closed',
      reason: 'streak_ended',
    });
    // The freed probe is counted as ended: every granted probe ends one way (the soak audits it).
    const { counts } = closed.state;
    expect(counts.probesGranted).toBe(
      counts.probesSucceeded + counts.probesFailed + counts.probesReleased + counts.probeLeasesExpired,
    );
    // The old probe's own report then changes nothing.
    expect(answer(closed.state, strict, 'probe#1', T0 + 2_200)).toEqual({
      state: closed.state,
      changed: false,
    });
  });
});

describe('seen policies', () => {
  test('a healthy admission never records its policy (so it costs the entity nothing)', () => {
    const state = initialBreakerState();
    expect(ask(state, strict, 'a#1', T0)).toEqual({ decision: 'allow', state, changed: false });
    expect(answer(state, strict, 'a#1', T0)).toEqual({ state, changed: false });
  });

  test('at most MAX_SEEN_POLICIES are kept, the least recently seen dropped; a day-old one is forgotten', () => {
    let state = initialBreakerState();
    for (let index = 0; index < MAX_SEEN_POLICIES + 3; index += 1)
      state = fail(state, { failureThreshold: 100 + index, cooldownMs: 1_000 }, `p${index}#1`, T0 + index);
    expect(state.policies).toHaveLength(MAX_SEEN_POLICIES);
    expect(state.policies[0]!.failureThreshold).toBe(103);

    const later = fail(state, strict, 'late#1', T0 + SEEN_POLICY_TTL_MS + 5);
    expect(later.policies).toEqual([
      expect.objectContaining({ failureThreshold: 2, lastSeenAtMs: T0 + SEEN_POLICY_TTL_MS + 5 }),
      ...[106, 107, 108, 109, 110].map((threshold) =>
        expect.objectContaining({ failureThreshold: threshold }),
      ),
    ]);
  });

  test('a reset closes for every route and keeps the policies', () => {
    const state = failures(failures(initialBreakerState(), lenient, 1, T0), strict, 2, T0 + 10);
    const reset = resetBreaker(state, { nowMs: T0 + 50, by: 'ops' });
    expect(reset).toMatchObject({ status: 'closed', consecutiveFailures: 0, policies: state.policies });
    expect(reset.openedAtMs).toBeUndefined();
    expect(reset.reopenAtMs).toBeUndefined();
  });
});

describe('continue-as-new', () => {
  test('state is plain JSON: the carried copy decides exactly as the original', () => {
    const state = fail(failures(initialBreakerState(), lenient, 3, T0), strict, 's#1', T0 + 10);
    const carried = JSON.parse(JSON.stringify(state)) as BreakerState;
    expect(carried).toEqual(state);
    for (const [policy, nowMs] of [
      [strict, T0 + 20],
      [lenient, T0 + 20],
      [strict, T0 + 2_000],
    ] as const)
      expect(ask(carried, policy, 'x#1', nowMs)).toEqual(ask(state, policy, 'x#1', nowMs));
  });

  /** The carried state in a committed history's first or continue-as-new event, as the earlier code wrote it. */
  function carriedStateOf(fixture: string, eventType: string): LegacyBreakerState {
    const file = path.resolve(__dirname, `../../fixtures/histories/${fixture}.json`);
    const history = JSON.parse(readFileSync(file, 'utf8')) as {
      events: { eventType: string; [attributes: string]: unknown }[];
    };
    const event = history.events.find((candidate) => candidate.eventType === eventType)!;
    const attributes = Object.entries(event).find(([key]) => key.endsWith('Attributes'))![1] as {
      input: { payloads: { data: string }[] };
    };
    const input = JSON.parse(Buffer.from(attributes.input.payloads[0]!.data, 'base64').toString('utf8')) as {
      state: LegacyBreakerState;
    };
    return input.state;
  }

  test('a state carried by the earlier code (replay fixtures) is migrated on read and keeps its facts', () => {
    const legacy = carriedStateOf('breaker-after-continue-as-new', 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
    expect(legacy.version).toBeUndefined();
    expect((legacy as { policies?: unknown }).policies).toBeUndefined();
    const migrated = readBreakerState(legacy);
    expect(migrated).toEqual({ ...legacy, version: BREAKER_STATE_VERSION, policies: [] });
    expect(readBreakerState(migrated)).toBe(migrated);
    // It still works as a breaker: two failures open it under a threshold-2 route, another route still calls.
    const opened = failures(legacy as unknown as BreakerState, strict, 2, T0);
    expect(opened).toMatchObject({ status: 'open', version: BREAKER_STATE_VERSION, consecutiveFailures: 2 });
    expect(opened.counts.countedFailures).toBe(legacy.counts.countedFailures + 2);
    expect(ask(opened, lenient, 'l#1', T0 + 5).decision).toBe('allow');
  });

  test('a legacy half-open state keeps its probe: the holder’s answer closes it', () => {
    const legacy: LegacyBreakerState = {
      status: 'half_open',
      consecutiveFailures: 1,
      lastFailureAtMs: T0,
      lastFailureClass: 'unavailable',
      openedAtMs: T0,
      reopenAtMs: T0 + 1_500,
      probe: { holder: 'old-probe#1', grantedAtMs: T0 + 2_000, leaseExpiresAtMs: T0 + 10_000 },
      transitions: [],
      counts: {
        countedFailures: 1,
        openings: 1,
        probesGranted: 1,
        probesSucceeded: 0,
        probesFailed: 0,
        probeLeasesExpired: 0,
        probesReleased: 0,
        resets: 0,
      },
    };
    const policy = { failureThreshold: 1, cooldownMs: 1_500 };
    expect(ask(legacy as unknown as BreakerState, policy, 'other#1', T0 + 3_000)).toMatchObject({
      decision: 'deny',
      retryAtMs: T0 + 10_000,
    });
    const closed = answer(legacy as unknown as BreakerState, policy, 'old-probe#1', T0 + 3_000);
    expect(closed.state).toMatchObject({ status: 'closed', consecutiveFailures: 0, version: 2 });
    expect(closed.state.counts.probesSucceeded).toBe(1);
  });
});
