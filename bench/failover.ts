// Failover latency: from the first target's failure to the second target's request, seen by the provider.
import type { FakeProvider } from 'switchyard/testing';
import { BENCH_MODELS, FAILOVER_ROUTE } from './bench-config';
import { summarize, type Summary } from './stats';
import type { WorkerLink } from './worker-link';

export interface FailoverResult {
  /** Failure answer of target 1 → request of target 2 arriving at the fake provider, in milliseconds. */
  readonly failover: Summary;
  /** The whole routed call, client side, in milliseconds. */
  readonly call: Summary;
  readonly errors: number;
  /** Workflow ids of the calls and their client-side latencies, for the history profile. */
  readonly workflowIds: string[];
  readonly callLatenciesMs: number[];
  /** When each call's second-target request reached the provider (epoch ms), by call; NaN when it did not. */
  readonly secondRequestsAt: number[];
}

/**
 * Runs sequential calls on the failover route, whose first target answers 500 at once (the 0 ms endpoint),
 * and pairs each failed request with the next request for the second target. The fake provider stamps
 * arrivals with `Date.now()`, so each sample has millisecond resolution.
 */
export async function measureFailover(
  link: WorkerLink,
  fake: FakeProvider,
  calls: number,
  maxDurationMs: number,
  variant: 'routed' | 'budgeted' = 'routed',
): Promise<FailoverResult> {
  fake.reset();
  fake.scriptAlways(BENCH_MODELS.flaky, { kind: 'error', error: 'server_error' });
  const result = await link.send({
    kind: 'sequential',
    call: { variant, mode: '0ms', route: FAILOVER_ROUTE },
    count: calls,
    maxDurationMs,
  });
  const gaps: number[] = [];
  const secondRequestsAt: number[] = [];
  let failedAt: number | undefined;
  for (const request of fake.requests) {
    if (request.model === BENCH_MODELS.flaky) failedAt = request.receivedAt;
    else if (request.model === BENCH_MODELS.healthy && failedAt !== undefined) {
      gaps.push(request.receivedAt - failedAt);
      secondRequestsAt.push(request.receivedAt);
      failedAt = undefined;
    }
  }
  fake.reset();
  return {
    failover: summarize(gaps),
    call: summarize(result.latenciesMs),
    errors: result.errors.length,
    workflowIds: result.workflowIds,
    callLatenciesMs: result.latenciesMs,
    secondRequestsAt,
  };
}
