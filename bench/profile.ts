// Where a call's milliseconds go: its history cut into segments between events, medians across calls.
import type { Client } from '@temporalio/client';
import { timedEvents } from './history';
import type { ActivityTimings } from './protocol';
import { median, round, summarize, type Summary } from './stats';

export interface Segment {
  /** `previous event → next event`, e.g. `ActivityTaskCompleted → WorkflowTaskScheduled`. */
  readonly between: string;
  /** Median over calls of the time this segment took in one call (summed when it occurs twice), in ms. */
  readonly p50Ms: number;
  /** How many times it occurs in one call (median). */
  readonly perCall: number;
}

export interface CallProfile {
  readonly calls: number;
  /** Client-side latency of the profiled calls. */
  readonly clientMs: Summary;
  /** First event → close event, in the server's clock. */
  readonly engineMs: Summary;
  /** Client latency − engine span: the start RPC before the first event and the result's arrival after the last. */
  readonly clientOutsideEngineP50Ms: number;
  /** History events per call (median). */
  readonly eventsPerCall: number;
  readonly segments: Segment[];
}

/** Profiles calls by their histories; `latenciesMs[i]` is the client-side latency of `workflowIds[i]`. */
export async function profileCalls(
  client: Client,
  workflowIds: readonly string[],
  latenciesMs: readonly number[],
): Promise<CallProfile> {
  const perLabel = new Map<string, { totals: number[]; counts: number[] }>();
  const engine: number[] = [];
  const outside: number[] = [];
  const eventCounts: number[] = [];
  for (const [index, workflowId] of workflowIds.entries()) {
    const events = await timedEvents(client, workflowId);
    if (events.length < 2) continue;
    const span = events[events.length - 1]!.atMs - events[0]!.atMs;
    engine.push(span);
    eventCounts.push(events.length);
    if (latenciesMs[index] !== undefined) outside.push(latenciesMs[index]! - span);
    const totals = new Map<string, { total: number; count: number }>();
    for (let position = 1; position < events.length; position += 1) {
      const label = `${events[position - 1]!.type} → ${events[position]!.type}`;
      const entry = totals.get(label) ?? { total: 0, count: 0 };
      entry.total += events[position]!.atMs - events[position - 1]!.atMs;
      entry.count += 1;
      totals.set(label, entry);
    }
    for (const [label, { total, count }] of totals) {
      const entry = perLabel.get(label) ?? { totals: [], counts: [] };
      entry.totals.push(total);
      entry.counts.push(count);
      perLabel.set(label, entry);
    }
  }
  const calls = engine.length;
  const segments = [...perLabel.entries()]
    // A segment seen in only a few calls (a rare extra task) would mislead as a median: keep the common ones.
    .filter(([, entry]) => entry.totals.length >= calls / 2)
    .map(([between, entry]) => ({
      between,
      // Calls without the segment count as 0 ms for it.
      p50Ms: round(median([...entry.totals, ...Array<number>(calls - entry.totals.length).fill(0)]), 2),
      perCall: median(entry.counts),
    }));
  return {
    calls,
    clientMs: summarize(latenciesMs.slice(0, workflowIds.length)),
    engineMs: summarize(engine),
    clientOutsideEngineP50Ms: round(median(outside), 2),
    eventsPerCall: median(eventCounts),
    segments,
  };
}

/** p50 / p99 of each activity type's execution time inside the worker. */
export function summarizeActivityTimings(timings: ActivityTimings): Record<string, Summary> {
  return Object.fromEntries(
    Object.entries(timings)
      .filter(([, samples]) => samples.length > 0)
      .map(([label, samples]) => [label, summarize(samples)]),
  );
}
