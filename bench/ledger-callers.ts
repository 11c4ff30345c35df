// Ledger bench callers: N concurrent callers reserve and settle on one scope as attempts do (the worker's batcher). Worker process.
import type { LedgerMessageBatcher } from 'switchyard/testing';
import type { LedgerResult } from './protocol';

export interface LedgerCallersOptions {
  readonly scope: string;
  readonly concurrency: number;
  readonly amountNanoUsd: number;
  /** Callers stop after this long even if the budget is not spent, in milliseconds. */
  readonly maxDurationMs: number;
}

/** Most errors one caller tolerates before it gives up. */
const MAX_ERRORS_PER_CALLER = 5;

/**
 * Each caller reserves, then settles its grant at the full amount (as a routed call settles after its attempt),
 * until the ledger refuses it: the scope's limit decides exactly how many grants there can be.
 */
export async function runLedgerCallers(
  batcher: Pick<LedgerMessageBatcher, 'reserve' | 'settle'>,
  options: LedgerCallersOptions,
): Promise<LedgerResult> {
  const reserveLatenciesMs: number[] = [];
  const errors: string[] = [];
  let granted = 0;
  let refused = 0;
  const started = performance.now();
  const deadline = started + options.maxDurationMs;
  let lastGrantAt = started;
  let timedOut = false;

  const caller = async (callerIndex: number) => {
    let callerErrors = 0;
    for (let sequence = 0; ; sequence += 1) {
      if (performance.now() > deadline) {
        timedOut = true;
        return;
      }
      const reservationId = `bench-ledger/${options.scope}/${callerIndex}/${sequence}`;
      const began = performance.now();
      try {
        const decision = await batcher.reserve(options.scope, {
          reservationId,
          amountNanoUsd: options.amountNanoUsd,
          holder: 'bench',
          leaseMs: 600_000,
        });
        reserveLatenciesMs.push(performance.now() - began);
        if (!decision.granted) {
          refused += 1;
          return;
        }
        granted += 1;
        lastGrantAt = performance.now();
        await batcher.settle(options.scope, {
          reservationId,
          costNanoUsd: options.amountNanoUsd,
          costKnown: true,
        });
      } catch (error) {
        errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
        callerErrors += 1;
        if (callerErrors >= MAX_ERRORS_PER_CALLER) return;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => caller(index)));
  return {
    reserveLatenciesMs,
    granted,
    refused,
    errors,
    grantWindowMs: lastGrantAt - started,
    timedOut,
  };
}
