// Runs the soak's planned calls through the client, phase by phase at each concurrency level, and records how each ended.
import type { SwitchyardClient } from '../../src/client/switchyard-client';
import { RoutedCallError } from '../../src/client/errors';
import type { Usage } from '../../src/providers/types';
import type { RoutingRecord } from '../../src/routing/routing-record';
import { soakCallInput, soakPhases, type SoakCall, type SoakScopeKind } from './soak-plan';

/** A call still unfinished after this long is stuck, in milliseconds: no route of the soak takes a tenth of it. */
export const STUCK_AFTER_MS = 180_000;

/** How a call ended: `Succeeded`, a routed-call failure type, `Stuck`, or `Untyped: <error name>`. */
export type SoakOutcome = string;

export interface SoakCallResult {
  readonly call: SoakCall;
  readonly workflowId: string;
  readonly outcome: SoakOutcome;
  /** The routing record (on success, and on every typed failure that carries one). */
  readonly record?: RoutingRecord;
  /** The served answer's usage, on success. */
  readonly usage?: Usage;
  /** The error message, for anything that did not succeed. */
  readonly message?: string;
  /** Wall time from start to the end, in milliseconds. */
  readonly durationMs: number;
}

export interface SoakRunOptions {
  readonly switchyard: SwitchyardClient;
  readonly calls: readonly SoakCall[];
  readonly scopes: Readonly<Record<Exclude<SoakScopeKind, 'none'>, string>>;
  /** Called after every `progressEvery` completed calls (and after the last one); awaited by that call's slot. */
  readonly onProgress: (completed: number) => Promise<void>;
  readonly progressEvery: number;
}

async function runOne(
  switchyard: SwitchyardClient,
  call: SoakCall,
  scopes: SoakRunOptions['scopes'],
): Promise<SoakCallResult> {
  const startedAt = Date.now();
  let workflowId = '';
  const ended = (fields: Omit<SoakCallResult, 'call' | 'workflowId' | 'durationMs'>): SoakCallResult => ({
    call,
    workflowId,
    durationMs: Date.now() - startedAt,
    ...fields,
  });
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<'stuck'>((resolve) => {
    timer = setTimeout(() => resolve('stuck'), STUCK_AFTER_MS);
  });
  try {
    const handle = await switchyard.start(soakCallInput(call, scopes));
    workflowId = handle.workflowId;
    const result = await Promise.race([handle.result(), stuck]);
    if (result === 'stuck')
      return ended({ outcome: 'Stuck', message: `not ended after ${STUCK_AFTER_MS} ms` });
    return ended({ outcome: 'Succeeded', record: result.record, usage: result.answer.usage });
  } catch (error) {
    if (error instanceof RoutedCallError) {
      return ended({
        outcome: error.type,
        message: error.message,
        ...(error.record ? { record: error.record } : {}),
      });
    }
    // Anything else (a start that failed, an error without a failure type) is what the soak must never see.
    const name = error instanceof Error ? error.name : typeof error;
    return ended({ outcome: `Untyped: ${name}`, message: String(error) });
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every phase's calls with that phase's number of calls in flight; results in plan order. */
export async function runSoakCalls(options: SoakRunOptions): Promise<SoakCallResult[]> {
  const results: SoakCallResult[] = new Array(options.calls.length);
  let completed = 0;
  for (const phase of soakPhases(options.calls)) {
    let next = 0;
    const slots = Array.from({ length: phase.concurrency }, async () => {
      while (next < phase.calls.length) {
        const call = phase.calls[next]!;
        next += 1;
        results[call.index] = await runOne(options.switchyard, call, options.scopes);
        completed += 1;
        if (completed % options.progressEvery === 0 || completed === options.calls.length)
          await options.onProgress(completed);
      }
    });
    await Promise.all(slots);
  }
  return results;
}
