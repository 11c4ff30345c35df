// Breaker entity load: history events per healthy call, and entity events per second during an outage.
import type { Breakers } from 'switchyard';
import type { FakeProvider } from 'switchyard/testing';
import {
  BENCH_MODELS,
  LATENCY_MODES,
  MODE_PROVIDER,
  OUTAGE_COOLDOWN_MS,
  OUTAGE_ROUTE,
  type LatencyMode,
} from './bench-config';
import { round, summarize, type Summary } from './stats';
import type { WorkerLink } from './worker-link';

/** The breakers the healthy routed calls consult: each mode's first target. */
export const HEALTHY_BREAKER_KEYS = LATENCY_MODES.map(
  (mode) => `${MODE_PROVIDER[mode]}/${BENCH_MODELS.healthy}`,
);

export interface BreakerMark {
  readonly historyLength: number;
  readonly generation: number;
}

/**
 * Makes the healthy targets' breakers exist, so "no events per healthy call" is measured on a running entity
 * rather than on a breaker nobody ever started: one failure creates each, the next answer clears its count.
 */
export async function createHealthyBreakers(
  link: WorkerLink,
  fakes: Record<LatencyMode, FakeProvider>,
): Promise<void> {
  for (const mode of LATENCY_MODES) {
    fakes[mode].script(BENCH_MODELS.healthy, { kind: 'error', error: 'server_error' });
    await link.send({ kind: 'sequential', call: { variant: 'routed', mode }, count: 2 });
  }
}

export async function markBreakers(breakers: Breakers, keys: readonly string[]): Promise<BreakerMark[]> {
  return Promise.all(
    keys.map(async (key) => {
      const view = await breakers.get(key);
      return { historyLength: view.historyLength, generation: view.generation };
    }),
  );
}

export interface HealthyBreakerResult {
  readonly healthyCalls: number;
  readonly eventsAdded: number;
  readonly eventsPerHealthyCall: number;
  /** False if an entity continued as new in between (its count restarted); the figure is then a lower bound. */
  readonly sameRun: boolean;
}

export function healthyBreakerLoad(
  before: readonly BreakerMark[],
  after: readonly BreakerMark[],
  healthyCalls: number,
): HealthyBreakerResult {
  const eventsAdded = after.reduce(
    (sum, mark, index) => sum + mark.historyLength - before[index]!.historyLength,
    0,
  );
  const sameRun = after.every((mark, index) => mark.generation === before[index]!.generation);
  return {
    healthyCalls,
    eventsAdded,
    eventsPerHealthyCall: round(eventsAdded / healthyCalls, 4),
    sameRun,
  };
}

export interface OutageResult {
  readonly concurrency: number;
  readonly cooldownMs: number;
  /** Entity events while the breaker opened: from the first failure until the opening phase ended. */
  readonly openingEvents: number;
  readonly openingS: number;
  /** Entity events per second once open, under the same load: probes after each cooldown, nothing else. */
  readonly entityEventsPerS: number;
  readonly steadyEvents: number;
  readonly steadyS: number;
  /** Requests that reached the down target while open (the probes). */
  readonly steadyRequestsToDownTarget: number;
  readonly openingRequestsToDownTarget: number;
  /** Routed calls served (by the second target) while open, and their latency. */
  readonly steadyCalls: number;
  readonly steadyCallsPerS: number;
  readonly latency: Summary;
  readonly errors: number;
}

/**
 * Puts the outage route's first target in a full outage and drives `concurrency` routed calls at it: first
 * until its breaker has opened (the opening burst), then for `durationMs` while it stays open.
 */
export async function measureOutage(
  link: WorkerLink,
  breakers: Breakers,
  fake: FakeProvider,
  options: { readonly concurrency: number; readonly durationMs: number; readonly openingMs: number },
): Promise<OutageResult> {
  const key = `${MODE_PROVIDER['0ms']}/${BENCH_MODELS.down}`;
  const call = { variant: 'routed', mode: '0ms', route: OUTAGE_ROUTE } as const;
  const requests = () => fake.counters(BENCH_MODELS.down).requests;
  const events = async () => (await breakers.get(key)).historyLength;
  fake.outage(BENCH_MODELS.down);
  try {
    const openingStart = Date.now();
    const requestsAtStart = requests();
    await link.send({
      kind: 'closedLoop',
      call,
      concurrency: options.concurrency,
      durationMs: options.openingMs,
    });
    const openingS = (Date.now() - openingStart) / 1000;
    const opened = await breakers.get(key);
    const requestsAtOpen = requests();
    const steadyStart = Date.now();
    const steady = await link.send({
      kind: 'closedLoop',
      call,
      concurrency: options.concurrency,
      durationMs: options.durationMs,
    });
    const steadyS = (Date.now() - steadyStart) / 1000;
    const steadyEvents = (await events()) - opened.historyLength;
    return {
      concurrency: options.concurrency,
      cooldownMs: OUTAGE_COOLDOWN_MS,
      openingEvents: opened.historyLength,
      openingS: round(openingS),
      entityEventsPerS: round(steadyEvents / steadyS),
      steadyEvents,
      steadyS: round(steadyS),
      steadyRequestsToDownTarget: requests() - requestsAtOpen,
      openingRequestsToDownTarget: requestsAtOpen - requestsAtStart,
      steadyCalls: steady.completed,
      steadyCallsPerS: round(steady.completed / (steady.elapsedMs / 1000)),
      latency: summarize(steady.latenciesMs),
      errors: Object.values(steady.errorKinds).reduce((sum, count) => sum + count, 0),
    };
  } finally {
    fake.recover(BENCH_MODELS.down);
  }
}
