// Load shapes run inside the worker process: sequential samples and closed loops. Bench side.
import type { ClosedLoopResult, SequentialResult } from './protocol';

/** A call to measure; resolves to the workflow id it ran, if any. */
export type Call = () => Promise<string | undefined>;

/** Pause after a failed call, so a lane that fails fast cannot spin, in milliseconds. */
const ERROR_PAUSE_MS = 20;
/** Hard cap on calls of one closed loop, whatever its duration. */
const MAX_CALLS = 200_000;

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0]!.slice(0, 200);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` calls one after another, or fewer if `maxDurationMs` runs out first. */
export async function sequential(
  call: Call,
  count: number,
  maxDurationMs: number,
): Promise<Omit<SequentialResult, 'eagerStarts'>> {
  const latenciesMs: number[] = [];
  const workflowIds: string[] = [];
  const errors: string[] = [];
  const deadline = performance.now() + maxDurationMs;
  for (let index = 0; index < count && performance.now() < deadline; index += 1) {
    const began = performance.now();
    try {
      const workflowId = await call();
      latenciesMs.push(performance.now() - began);
      if (workflowId) workflowIds.push(workflowId);
    } catch (error) {
      errors.push(describe(error));
      await pause(ERROR_PAUSE_MS);
    }
  }
  return { latenciesMs, workflowIds, errors };
}

/**
 * `concurrency` lanes, each calling again as soon as its call ends, until `durationMs` has passed. Calls still
 * running `drainMs` after that are left behind and counted as unfinished (a badly tuned setup can take minutes).
 */
export async function closedLoop(
  call: Call,
  concurrency: number,
  durationMs: number,
  drainMs = Math.max(15_000, durationMs),
): Promise<ClosedLoopResult> {
  const latenciesMs: number[] = [];
  const errors: string[] = [];
  const errorKinds: Record<string, number> = {};
  const started = performance.now();
  const deadline = started + durationMs;
  let calls = 0;
  const lane = async () => {
    while (performance.now() < deadline && calls < MAX_CALLS) {
      calls += 1;
      const began = performance.now();
      try {
        await call();
        latenciesMs.push(performance.now() - began);
      } catch (error) {
        const kind = describe(error);
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
        if (errors.length < 20) errors.push(kind);
        await pause(ERROR_PAUSE_MS);
      }
    }
  };
  let finishedLanes = 0;
  const lanes = Array.from({ length: concurrency }, () => lane().finally(() => (finishedLanes += 1)));
  let timer: NodeJS.Timeout | undefined;
  const drained = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadline - performance.now() + drainMs);
  });
  await Promise.race([Promise.all(lanes), drained]);
  clearTimeout(timer);
  const elapsedMs = performance.now() - started;
  return {
    latenciesMs: [...latenciesMs],
    errors,
    errorKinds: { ...errorKinds },
    elapsedMs,
    completed: latenciesMs.length,
    unfinished: concurrency - finishedLanes,
  };
}
