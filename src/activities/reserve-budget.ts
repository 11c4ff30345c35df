// The reserve-budget local activity: one attempt's reservation, batched per scope, sent by update-with-start. Worker side.
import { asyncLocalStorage } from '@temporalio/activity';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { budgetLimit, BudgetScopeSchema } from '../config/budget';
import { ownEntry, type Config } from '../config/config';
import { ledgerStartOperation } from '../client/ledgers';
import type { ReservationDecision, ReservationRequest } from '../routing/ledger-state';
import {
  ReservationRequestSchema,
  RESERVE_REFUSED_FAILURE_TYPE,
  reserveUpdate,
  type ReserveBatch,
  type ReserveBatchResult,
} from '../workflows/ledger/ledger-definitions';
import { SwitchyardMetric } from '../workflows/metric-names';
import { LedgerReservationBatcher, type SendReservations } from './ledger-batcher';

export interface ReserveBudgetInput {
  readonly scope: string;
  readonly request: ReservationRequest;
}

const ReserveBudgetInputSchema = z.object({ scope: BudgetScopeSchema, request: ReservationRequestSchema });

/**
 * Sends one batch to the scope's ledger, creating the ledger if needed, with the config's budget for the
 * scope. A batch refused whole by the ledger's validator comes back as its refusals, not as an error.
 */
export function createReservationSender(client: Client, taskQueue: string, config: Config): SendReservations {
  return async (scope, requests) => {
    const budget = config.budgets && ownEntry(config.budgets, scope);
    const batch: ReserveBatch = {
      requests: [...requests],
      ...(budget ? { declaredLimit: budgetLimit(budget) } : {}),
    };
    try {
      const result = await client.workflow.executeUpdateWithStart(reserveUpdate, {
        args: [batch],
        startWorkflowOperation: ledgerStartOperation(scope, taskQueue),
      });
      return result.decisions;
    } catch (error) {
      const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === RESERVE_REFUSED_FAILURE_TYPE) {
        return (cause.details?.[0] as ReserveBatchResult).decisions;
      }
      // Any other refusal by the ledger (an invalid message) is final: sending it again cannot help.
      if (cause instanceof ApplicationFailure) throw cause;
      throw error;
    }
  };
}

export function createReserveBudget(batcher: LedgerReservationBatcher) {
  /** Reserves budget for one attempt; idempotent by reservation id, so the local activity may retry freely. */
  return async function reserveBudget(input: ReserveBudgetInput): Promise<ReservationDecision> {
    const parsed = ReserveBudgetInputSchema.safeParse(input);
    if (!parsed.success) {
      // Checked here, one request at a time, so a bad request cannot sink the batch it would have joined.
      throw ApplicationFailure.create({
        type: 'InvalidLedgerMessage',
        message: `invalid reservation:\n${z.prettifyError(parsed.error)}`,
        nonRetryable: true,
      });
    }
    const decision = await batcher.reserve(parsed.data.scope, parsed.data.request);
    if (!decision.granted) countRefusal(parsed.data.scope, decision.reason);
    return decision;
  };
}

/** One refused reservation on the activity's meter (the worker's Prometheus endpoint). */
function countRefusal(scope: string, reason: string): void {
  // Outside an activity (a unit test calling the function directly) there is no meter to count on.
  asyncLocalStorage
    .getStore()
    ?.metricMeter.createCounter(
      SwitchyardMetric.ledgerRefusals,
      undefined,
      'Reservations refused by budget ledgers',
    )
    .add(1, { scope, reason });
}
