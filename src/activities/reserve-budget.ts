// Reservations on a budget ledger: the per-worker sender of message batches, and the reserve step. Worker side.
import { asyncLocalStorage } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { BudgetScopeSchema } from '../config/budget';
import { budgetLimit } from '../routing/ledger-limits';
import { ownEntry, type Config } from '../config/config';
import type { ReservationDecision, ReservationRequest } from '../routing/ledger-state';
import {
  claimSignal,
  ledgerWorkflowId,
  messagesUpdate,
  releaseSignal,
  ReservationRequestSchema,
  RESERVE_REFUSED_FAILURE_TYPE,
  reserveUpdate,
  settleSignal,
  type LedgerMessages,
  type ReserveBatch,
  type ReserveBatchResult,
} from '../workflows/ledger/ledger-definitions';
import { ledgerStartOptions } from '../workflows/ledger/ledger-start';
import type { ledgerWorkflow } from '../workflows/ledger/ledger-workflow';
import { SwitchyardMetric } from '../workflows/metric-names';
import type { BudgetAllowances, SendClaims } from './budget-allowances';
import { LedgerMessageBatcher, type LedgerBatch, type SendLedgerBatch } from './ledger-batcher';

export interface ReserveBudgetInput {
  readonly scope: string;
  readonly request: ReservationRequest;
}

const ReserveBudgetInputSchema = z.object({ scope: BudgetScopeSchema, request: ReservationRequestSchema });

/**
 * Sends one batch to the scope's ledger, creating the ledger if needed, with the config's budget for the
 * scope. A batch refused whole by the ledger's validator comes back as its refusals, not as an error. A ledger
 * still run by a worker from before the `messages` update gets the same messages the old way (a `reserve`
 * update, settles and releases as signals), so workers can be upgraded one at a time.
 */
export function createLedgerSender(client: Client, taskQueue: string, config: Config): SendLedgerBatch {
  const declared = (scope: string) => {
    const budget = config.budgets && ownEntry(config.budgets, scope);
    return budget ? { declaredLimit: budgetLimit(budget) } : {};
  };
  const refusals = (error: unknown): readonly ReservationDecision[] => {
    const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === RESERVE_REFUSED_FAILURE_TYPE) {
      return (cause.details?.[0] as ReserveBatchResult).decisions;
    }
    // Any other refusal by the ledger (an invalid message) is final: sending it again cannot help.
    if (cause instanceof ApplicationFailure) throw cause;
    throw error;
  };
  const sendTheOldWay = async (scope: string, batch: LedgerBatch) => {
    const ledger = client.workflow.getHandle(ledgerWorkflowId(scope));
    for (const settlement of batch.settlements) await ledger.signal(settleSignal, settlement);
    for (const release of batch.releases) await ledger.signal(releaseSignal, release);
    if (batch.requests.length === 0) return [];
    const reserve: ReserveBatch = { requests: [...batch.requests], ...declared(scope) };
    try {
      return (await ledger.executeUpdate(reserveUpdate, { args: [reserve] })).decisions;
    } catch (error) {
      return refusals(error);
    }
  };
  return async (scope, batch) => {
    const messages: LedgerMessages = {
      requests: [...batch.requests],
      settlements: [...batch.settlements],
      releases: [...batch.releases],
      ...declared(scope),
    };
    try {
      const result = await client.workflow.executeUpdateWithStart(messagesUpdate, {
        args: [messages],
        startWorkflowOperation: new WithStartWorkflowOperation<typeof ledgerWorkflow>(
          'ledgerWorkflow',
          ledgerStartOptions(scope, taskQueue),
        ),
      });
      return result.decisions;
    } catch (error) {
      const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
      if (
        cause instanceof ApplicationFailure &&
        cause.message.startsWith('No registered handler for update')
      ) {
        return sendTheOldWay(scope, batch);
      }
      return refusals(error);
    }
  };
}

/**
 * A worker's ledger messages: reservations, settles and releases to each budget scope's ledger, coalesced into
 * one update in flight per scope; ledgers it starts run on `taskQueue` (the entity task queue). A worker has
 * exactly one, shared by all its attempts.
 */
export function createLedgerBatcher(client: Client, taskQueue: string, config: Config): LedgerMessageBatcher {
  return new LedgerMessageBatcher(createLedgerSender(client, taskQueue, config));
}

/** Records a worker's claims on its allowance in the scope's ledger: a signal, in its history once sent. */
export function createClaimSender(client: Client): SendClaims {
  return (scope, claims) => client.workflow.getHandle(ledgerWorkflowId(scope)).signal(claimSignal, claims);
}

/** `allowances`: grant from the worker's allowances where they can hold the reservation; else on the ledger. */
export function createReserveBudget(batcher: LedgerMessageBatcher, allowances?: BudgetAllowances) {
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
    // A caller's own request never asks for an allowance: only the worker's allowances do.
    const { allowance: _ignored, ...request } = parsed.data.request;
    const decision = allowances
      ? await allowances.reserve(parsed.data.scope, request)
      : await batcher.reserve(parsed.data.scope, request);
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
