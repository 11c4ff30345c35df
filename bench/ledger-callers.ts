// Ledger bench callers: N concurrent callers reserve on one scope through the worker's reserve path. Worker process.
import type { Client } from '@temporalio/client';
import type { ReservationDecision, ReservationRequest } from '../src/routing/ledger-state';
import { ledgerWorkflowId, settleSignal } from '../src/workflows/ledger/ledger-definitions';
import type { LedgerResult } from './protocol';

/** The reserve step exactly as a routed call's local activity runs it (batcher + update-with-start). */
export type ReserveBudget = (input: {
  scope: string;
  request: ReservationRequest;
}) => Promise<ReservationDecision>;

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
  client: Client,
  reserveBudget: ReserveBudget,
  options: LedgerCallersOptions,
): Promise<LedgerResult> {
  const ledger = client.workflow.getHandle(ledgerWorkflowId(options.scope));
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
        const decision = await reserveBudget({
          scope: options.scope,
          request: { reservationId, amountNanoUsd: options.amountNanoUsd, holder: 'bench', leaseMs: 600_000 },
        });
        reserveLatenciesMs.push(performance.now() - began);
        if (!decision.granted) {
          refused += 1;
          return;
        }
        granted += 1;
        lastGrantAt = performance.now();
        await ledger.signal(settleSignal, {
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
