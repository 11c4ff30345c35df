// The ledger's activity for leases that ran out: what does the holder's own record say the attempt cost? Worker side.
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Reconciliation } from '../routing/ledger-state';
import type { AttemptRecord, RoutingRecord } from '../routing/routing-record';
import { attemptsQuery, CANCELLED_RECORD_MEMO } from '../workflows/definitions';

/** A holder still on the attempt gets this much more lease, in milliseconds, before it is asked again. */
export const RECONCILE_EXTENSION_MS = 5 * 60_000;

export interface ReconcileReservationsInput {
  readonly reservations: readonly { readonly reservationId: string; readonly holder: string }[];
}

export interface ReconciledReservation {
  readonly reservationId: string;
  readonly reconciliation: Reconciliation;
}

/** `<workflow id>/<run id>#<attempt>` (see `ledgerReservationId`), read from the right: ids may hold `/`. */
export function parseReservationId(
  reservationId: string,
): { workflowId: string; runId: string; attempt: number } | undefined {
  const hash = reservationId.lastIndexOf('#');
  const slash = reservationId.lastIndexOf('/', hash);
  if (hash < 0 || slash <= 0) return undefined;
  const attempt = Number(reservationId.slice(hash + 1));
  const runId = reservationId.slice(slash + 1, hash);
  if (!Number.isSafeInteger(attempt) || attempt < 1 || runId === '') return undefined;
  return { workflowId: reservationId.slice(0, slash), runId, attempt };
}

const UNKNOWN: Reconciliation = { kind: 'charge', costNanoUsd: 0, costKnown: false };
/** A finished call whose record has no such attempt never made it (its reservation was given back): free. */
const NEVER_MADE: Reconciliation = { kind: 'charge', costNanoUsd: 0, costKnown: true };

function fromAttempt(attempt: AttemptRecord | undefined): Reconciliation | undefined {
  return attempt
    ? { kind: 'charge', costNanoUsd: attempt.costNanoUsd, costKnown: attempt.costKnown }
    : undefined;
}

function isRecord(value: unknown): value is RoutingRecord {
  return typeof value === 'object' && value !== null && Array.isArray((value as RoutingRecord).attempts);
}

/**
 * Reads, for each reservation, the routed call that holds it: its finished record (answer, failure or
 * cancellation) or, while it runs, its attempts so far. The attempt's recorded cost closes the reservation; an
 * attempt still running extends it; a holder with no record (terminated, gone, not a routed call) costs the
 * whole reservation, as a lost attempt always has.
 */
export function createReconcileReservations(client: Client) {
  async function reconcileOne(reservationId: string): Promise<Reconciliation> {
    const parsed = parseReservationId(reservationId);
    if (!parsed) return UNKNOWN;
    const handle = client.workflow.getHandle(parsed.workflowId, parsed.runId, { followRuns: false });
    /** The finished call's word on the attempt; no record at all: unknown, so the whole reservation. */
    const fromRecord = (record: unknown): Reconciliation =>
      isRecord(record)
        ? (fromAttempt(record.attempts.find((attempt) => attempt.attempt === parsed.attempt)) ?? NEVER_MADE)
        : UNKNOWN;
    try {
      const description = await handle.describe();
      switch (description.status.name) {
        case 'RUNNING': {
          const found = fromAttempt(
            (await handle.query(attemptsQuery)).find((a) => a.attempt === parsed.attempt),
          );
          return found ?? { kind: 'extend', leaseMs: RECONCILE_EXTENSION_MS };
        }
        case 'COMPLETED':
          return fromRecord(((await handle.result()) as { record?: unknown }).record);
        case 'FAILED':
          try {
            await handle.result();
            return UNKNOWN;
          } catch (error) {
            const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
            return fromRecord(cause instanceof ApplicationFailure ? cause.details?.[0] : undefined);
          }
        case 'CANCELLED':
          return fromRecord(description.memo?.[CANCELLED_RECORD_MEMO]);
        default:
          return UNKNOWN;
      }
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return UNKNOWN;
      // Unreachable now: the activity fails and Temporal retries it (the ledger charges in full only at the end).
      throw error;
    }
  }

  return async function reconcileReservations(
    input: ReconcileReservationsInput,
  ): Promise<ReconciledReservation[]> {
    const answers: ReconciledReservation[] = [];
    for (const { reservationId } of input.reservations) {
      answers.push({ reservationId, reconciliation: await reconcileOne(reservationId) });
    }
    return answers;
  };
}
