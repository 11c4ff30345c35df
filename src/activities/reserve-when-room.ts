// Reserving when the budget is held, not spent: the attempt waits a short while for other calls to settle. Worker side.
import type { ReservationDecision, ReservationRefusal } from '../routing/ledger-state';

/**
 * The longest an attempt waits for room that other calls' reservations hold, in milliseconds. A reservation holds
 * an attempt's worst case until it settles at its real cost, usually far less; refusing a call while the budget it
 * needs is only held would turn a busy scope into a spent one. Past this, the call is refused as it always was.
 */
export const RESERVATION_WAIT_MS = 5_000;
/** First pause before asking again, in milliseconds; doubled up to {@link RESERVATION_RETRY_MAX_MS}. */
const RESERVATION_RETRY_FIRST_MS = 50;
const RESERVATION_RETRY_MAX_MS = 250;

/**
 * Whether a refusal could become a grant without anyone raising the limit: the request fits in what is not yet
 * spent, and other reservations hold the rest. A scope spent past the request is exhausted: waiting cannot help.
 */
export function heldNotSpent(refusal: ReservationRefusal): boolean {
  if (refusal.reason !== 'over_budget' || refusal.availableNanoUsd === null) return false;
  return (
    refusal.reservedNanoUsd > 0 &&
    refusal.availableNanoUsd + refusal.reservedNanoUsd >= refusal.requestedNanoUsd
  );
}

export interface ReserveWhenRoomOptions {
  /** @default {@link RESERVATION_WAIT_MS} */
  readonly waitMs?: number;
  /** Whether the attempt still wants the reservation (false once its call is cancelled or given up). */
  readonly wanted?: () => boolean;
  readonly sleep?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Asks for the reservation; while the ledger refuses it only because other reservations hold the budget, asks
 * again (the same reservation id, so a grant is never made twice) until it is granted, the budget is truly
 * spent, or `waitMs` has passed. Returns the last decision.
 */
export async function reserveWhenRoom(
  reserve: () => Promise<ReservationDecision>,
  options: ReserveWhenRoomOptions = {},
): Promise<ReservationDecision> {
  const until = Date.now() + (options.waitMs ?? RESERVATION_WAIT_MS);
  const sleep = options.sleep ?? pause;
  let delay = RESERVATION_RETRY_FIRST_MS;
  for (;;) {
    const decision = await reserve();
    if (decision.granted || !heldNotSpent(decision)) return decision;
    if (Date.now() + delay > until || options.wanted?.() === false) return decision;
    await sleep(delay);
    delay = Math.min(delay * 2, RESERVATION_RETRY_MAX_MS);
  }
}
