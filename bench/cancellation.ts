// Cancellation: from a caller's cancel to the provider request's abort, seen by the provider. Bench side.
import type { Client } from '@temporalio/client';
import { RoutedCallError, SwitchyardClient, type Config } from 'switchyard';
import type { FakeProvider } from 'switchyard/testing';
import { BENCH_MODELS, BENCH_REQUEST, MODE_PROVIDER } from './bench-config';
import { summarize, type Summary } from './stats';

/** How long the provider takes to answer each call: long enough that every cancel lands mid-request. */
const ANSWER_DELAY_MS = 2_000;
/** The earliest and latest a call is cancelled after its request reached the provider, in milliseconds. */
const CANCEL_AFTER_MS = { min: 100, max: 1_700 } as const;

export interface CancellationResult {
  readonly calls: number;
  /** The caller's `cancel()` → the provider sees the request's connection closed, in milliseconds. */
  readonly cancelToAbort: Summary;
  /** Calls that came back answered although cancelled mid-request (goal: 0). */
  readonly answeredAfterCancel: number;
  /** Requests the provider answered in full: the cancellation never stopped them. */
  readonly notAborted: number;
  /** Calls that ended neither cancelled nor answered. */
  readonly otherOutcomes: number;
}

/**
 * `calls` routed calls at `concurrency` at a time, each to a provider answering in {@link ANSWER_DELAY_MS} on the
 * default heartbeat timeout (2 s), cancelled at a time spread over {@link CANCEL_AFTER_MS} after its request
 * arrived. The fake provider runs in this process and stamps the close of a request with `Date.now()`.
 */
export async function measureCancellation(
  client: Client,
  taskQueue: string,
  config: Config,
  fake: FakeProvider,
  options: { readonly calls: number; readonly concurrency: number },
): Promise<CancellationResult> {
  fake.reset();
  fake.scriptAlways(BENCH_MODELS.slow, { kind: 'answer', delayMs: ANSWER_DELAY_MS });
  const switchyard = new SwitchyardClient({ client, taskQueue, config });
  const route = {
    targets: [{ provider: MODE_PROVIDER['0ms'], model: BENCH_MODELS.slow, timeoutMs: 30_000 }],
  };
  const gaps: number[] = [];
  let answeredAfterCancel = 0;
  let notAborted = 0;
  let otherOutcomes = 0;
  const one = async (index: number) => {
    const tag = `cancel probe ${index} ${Date.now()}`;
    const handle = await switchyard.start({
      route,
      request: { ...BENCH_REQUEST, messages: [{ role: 'user', content: tag }] },
    });
    const arrived = await requestOf(fake, tag);
    // Spread evenly over the window, the same spread every run.
    const span = CANCEL_AFTER_MS.max - CANCEL_AFTER_MS.min;
    await sleep(CANCEL_AFTER_MS.min + ((index * 7919) % (span + 1)));
    const cancelledAt = Date.now();
    await handle.cancel();
    try {
      await handle.result();
      answeredAfterCancel += 1;
    } catch (error) {
      if (!(error instanceof RoutedCallError) || error.type !== 'Cancelled') otherOutcomes += 1;
    }
    const abandonedAt = fake.abandonedAt(arrived);
    if (abandonedAt === undefined) notAborted += 1;
    else gaps.push(abandonedAt - cancelledAt);
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.calls) await one(next++);
    }),
  );
  fake.reset();
  return {
    calls: options.calls,
    cancelToAbort: summarize(gaps),
    answeredAfterCancel,
    notAborted,
    otherOutcomes,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sequence number of the request whose prompt holds `tag`, once it reached the provider. */
async function requestOf(fake: FakeProvider, tag: string): Promise<number> {
  for (let waited = 0; waited < 30_000; waited += 5) {
    const found = fake.requests.find((request) => JSON.stringify(request.body).includes(tag));
    if (found) return found.sequence;
    await sleep(5);
  }
  throw new Error(`cancellation bench: no request for "${tag}" within 30 s`);
}

/** The bound on cancel → abort, p50, in milliseconds. */
const CANCEL_TO_ABORT_GOAL_MS = 100;

export function cancellationGoal(result: CancellationResult): {
  goal: string;
  measured: string;
  met: boolean;
} {
  const { cancelToAbort } = result;
  return {
    goal: `cancel → provider request aborted p50 ≤ ${CANCEL_TO_ABORT_GOAL_MS} ms; 0 cancelled calls answered`,
    measured:
      `${cancelToAbort.p50} ms (p90 ${cancelToAbort.p90}, max ${cancelToAbort.max}); ` +
      `${result.answeredAfterCancel}/${result.calls} answered, ${result.notAborted} never aborted`,
    met:
      result.answeredAfterCancel === 0 &&
      result.notAborted === 0 &&
      result.otherOutcomes === 0 &&
      cancelToAbort.p50 <= CANCEL_TO_ABORT_GOAL_MS,
  };
}

/** The measurement's cells in the bench's results table. */
export function cancellationRow(result: CancellationResult): [string, string] {
  const { cancelToAbort } = result;
  return [
    `cancellation over ${result.calls} calls, each cancelled ${CANCEL_AFTER_MS.min}–${CANCEL_AFTER_MS.max} ms into a ${ANSWER_DELAY_MS} ms answer (cancel → the provider sees the request closed)`,
    `p50 ${cancelToAbort.p50} ms, p90 ${cancelToAbort.p90} ms, max ${cancelToAbort.max} ms; ` +
      `${result.answeredAfterCancel} answered after cancel, ${result.notAborted} never aborted, ${result.otherOutcomes} other outcomes`,
  ];
}
