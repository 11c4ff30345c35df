// `switchyard breakers` tables: the shared counts, and how each route policy seen judges them. No server.
import { policyLabel, renderBreakerDetails, renderBreakerTable } from '../../../src/cli/commands/breakers';
import type { BreakerView } from '../../../src/client/breakers';
import { judgeSeenPolicies } from '../../../src/routing/breaker-judgement';
import { BreakerOutcome, initialBreakerState, type BreakerState } from '../../../src/routing/breaker-state';
import { recordOutcome } from '../../../src/routing/breaker-transitions';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const strict = { failureThreshold: 2, cooldownMs: 5_000 };
const lenient = { failureThreshold: 5, cooldownMs: 120_000 };

function viewOf(state: BreakerState): BreakerView {
  return {
    key: 'openai/gpt-4o',
    provider: 'openai',
    model: 'gpt-4o',
    workflowId: 'switchyard-breaker-openai/gpt-4o',
    exists: true,
    state,
    policies: judgeSeenPolicies(state),
    generation: 0,
    historyLength: 12,
  };
}

function failed(state: BreakerState, policy: typeof strict, caller: string, nowMs: number): BreakerState {
  return recordOutcome(state, {
    nowMs,
    policy,
    caller,
    outcome: BreakerOutcome.countedFailure,
    failureClass: 'rate_limited',
  }).state;
}

const state = failed(failed(initialBreakerState(), lenient, 'l#1', T0), strict, 's#1', T0 + 1_000);

test('labels a policy as threshold/cooldown', () => {
  expect(policyLabel(strict)).toBe('2/5s');
  expect(policyLabel(lenient)).toBe('5/2min');
  expect(policyLabel({ failureThreshold: 3, cooldownMs: 1_500 })).toBe('3/1500ms');
});

test('the table shows the strictest judgement as STATUS and every seen policy in POLICIES', () => {
  const table = renderBreakerTable([viewOf(state)], T0 + 2_000)
    .trimEnd()
    .split('\n');
  expect(table[0]).toMatch(
    /^BREAKER\s+STATUS\s+FAILURES\s+LAST FAILURE\s+NEXT PROBE\s+POLICIES\s+LAST TRANSITION$/,
  );
  expect(table[1]).toMatch(
    /^openai\/gpt-4o\s+open\s+2\s+rate_limited\s+in 4 s\s+2\/5s open · 5\/2min closed\s+closed → open/,
  );
  // Once the strict cooldown has passed, that policy's callers may probe.
  expect(renderBreakerTable([viewOf(state)], T0 + 7_000)).toContain('2/5s open (probe due) · 5/2min closed');
});

test('show lists each policy with its judgement, probe time and when it was last seen', () => {
  const details = renderBreakerDetails(viewOf(state), T0 + 2_000);
  expect(details).toMatch(/status\s+open \(as the strictest policy seen judges it\)/);
  expect(details).toMatch(/failing since\s+2 s ago/);
  expect(details).toMatch(/2\/5s\s+2\s+5s\s+open\s+in 4 s\s+1 s ago/);
  expect(details).toMatch(/5\/2min\s+5\s+2min\s+closed\s+2 s ago/);
});

test('a running Retry-After pause shows in the status and the details, and not once it has ended', () => {
  const paused: BreakerState = { ...initialBreakerState(), pausedUntilMs: T0 + 12_000 };
  expect(renderBreakerTable([viewOf(paused)], T0)).toMatch(/openai\/gpt-4o\s+closed, paused until in 12 s/);
  expect(renderBreakerDetails(viewOf(paused), T0)).toMatch(
    /paused\s+until in 12 s \(a provider's Retry-After\)/,
  );
  expect(renderBreakerTable([viewOf(paused)], T0 + 12_000)).not.toContain('paused');
  expect(renderBreakerDetails(viewOf(paused), T0 + 12_000)).not.toContain('paused');
});
