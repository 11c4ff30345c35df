// The soak's audit of circuit breakers: each final state explained by the counted outcomes the records show.
import type { BreakerView } from '../../src/client/breakers';
import type { Config } from '../../src/config/config';
import { COUNTED_CLASSES } from './soak-audit';
import type { SoakCallResult } from './soak-runner';

/** What a `circuit_open` skip says when the breaker could not be reached at all. */
export const BREAKER_UNREACHABLE_MESSAGE = 'breaker unreachable: treated as open';

export interface BreakerSummary {
  readonly status: string;
  /** Skips because the breaker could not be reached. */
  readonly unreachableSkips: number;
  readonly openings: number;
  readonly countedFailures: number;
  readonly probes: number;
}

/** The lowest and highest failure threshold of the routes that use `model`. */
function thresholds(config: Config, model: string): { lowest: number; highest: number } {
  const values = Object.values(config.routes)
    .filter((route) => route.targets.some((target) => 'model' in target && target.model === model))
    .map((route) => route.breaker.failureThreshold);
  return { lowest: Math.min(...values), highest: Math.max(...values) };
}

/**
 * Checks one breaker's final view against the records; returns one line per inconsistency. With every call
 * ended, nothing may still hold a probe, and every counted failure a record shows must have reached the entity.
 */
export function auditBreaker(
  config: Config,
  view: BreakerView,
  results: readonly SoakCallResult[],
): string[] {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`breaker ${view.key}: ${text}`);
  const attempts = results
    .flatMap((result) => result.record?.attempts ?? [])
    .filter((attempt) => attempt.model === view.model && attempt.provider === view.provider);
  const countedInRecords = attempts.filter(
    (attempt) => attempt.outcome === 'failed' && COUNTED_CLASSES.includes(attempt.failureClass!),
  ).length;
  // A breaker no worker answered for in time is treated as open; the record says so (a busy machine's doing).
  const unreachableSkips = attempts.filter(
    (attempt) => attempt.skipReason === 'circuit_open' && attempt.message === BREAKER_UNREACHABLE_MESSAGE,
  ).length;
  const circuitOpenSkips =
    attempts.filter((attempt) => attempt.skipReason === 'circuit_open').length - unreachableSkips;
  const { state } = view;
  const { counts } = state;
  const { lowest, highest } = thresholds(config, view.model);

  if (counts.countedFailures !== countedInRecords)
    problem(`entity counted ${counts.countedFailures} failures, records show ${countedInRecords}`);
  if (circuitOpenSkips > 0 && counts.openings === 0)
    problem(`${circuitOpenSkips} circuit_open skips on a breaker that never opened (and was reachable)`);
  if (counts.resets !== 0) problem(`${counts.resets} resets during the soak`);

  // The transition log must chain, and end in the current status.
  const transitions = state.transitions;
  transitions.forEach((transition, index) => {
    const previous = transitions[index - 1];
    if (previous && previous.to !== transition.from)
      problem(`transition ${index} starts from ${transition.from} after one to ${previous.to}`);
  });
  const lastTransition = transitions[transitions.length - 1];
  if ((lastTransition?.to ?? 'closed') !== state.status)
    problem(`status ${state.status} but the last transition goes to ${lastTransition?.to ?? 'nothing'}`);
  if (transitions.length < 50) {
    const openings = transitions.filter((transition) => transition.to === 'open').length;
    if (openings !== counts.openings) problem(`${counts.openings} openings counted, ${openings} logged`);
  }

  switch (state.status) {
    case 'open': {
      if (state.consecutiveFailures < lowest)
        problem(
          `open with ${state.consecutiveFailures} consecutive counted failures (lowest threshold ${lowest})`,
        );
      const lastOpening = [...transitions].reverse().find((transition) => transition.to === 'open');
      if (!lastOpening || !['failure_threshold', 'probe_failed'].includes(lastOpening.reason))
        problem(`open for reason ${lastOpening?.reason ?? 'none logged'}`);
      break;
    }
    case 'half_open':
      // Every call has ended, so a probe still held is one whose outcome never reached the entity.
      if (state.probe)
        problem(
          `half-open with a probe held by ${state.probe.holder} after every call ended (lease to ${new Date(state.probe.leaseExpiresAtMs).toISOString()})`,
        );
      break;
    case 'closed':
      if (state.consecutiveFailures >= highest)
        problem(
          `closed with ${state.consecutiveFailures} consecutive counted failures (highest threshold ${highest})`,
        );
      break;
  }

  // Every granted probe ended one way: succeeded, failed, released, replaced after its lease, or is still held.
  const ended =
    counts.probesSucceeded + counts.probesFailed + counts.probesReleased + counts.probeLeasesExpired;
  if (counts.probesGranted !== ended + (state.probe ? 1 : 0))
    problem(`${counts.probesGranted} probes granted, ${ended} ended, ${state.probe ? 1 : 0} held`);
  return problems;
}

export function summarizeBreaker(view: BreakerView, results: readonly SoakCallResult[]): BreakerSummary {
  return {
    status: view.exists ? view.state.status : 'none',
    unreachableSkips: results
      .flatMap((result) => result.record?.attempts ?? [])
      .filter((attempt) => attempt.model === view.model && attempt.message === BREAKER_UNREACHABLE_MESSAGE)
      .length,
    openings: view.state.counts.openings,
    countedFailures: view.state.counts.countedFailures,
    probes: view.state.counts.probesGranted,
  };
}
