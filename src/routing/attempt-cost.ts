// What an attempt is charged when it failed: nothing, or its whole bound when usage is unknown. Pure.
import { costOfUsage, type NanoUsd, type TokenCounts } from './money';
import type { Prices } from '../config/resolved-route';

export interface AttemptCharge {
  readonly costNanoUsd: NanoUsd;
  readonly costKnown: boolean;
}

/**
 * Usage reported with the failure (a refusal is a billed 200) is charged at its real price. Otherwise a
 * request that never left costs nothing; an HTTP error answer is not billed by providers; anything else
 * that was sent (a timeout, a cut stream, a lost worker, an unreadable 200) may have been billed in full,
 * so it is charged its worst-case bound rather than guessed low.
 */
export function failedAttemptCharge(
  failure: { requestSent: boolean; httpStatus?: number; usage?: TokenCounts },
  prices: Prices,
  bound: NanoUsd,
): AttemptCharge {
  if (failure.usage) return { costNanoUsd: costOfUsage(prices, failure.usage), costKnown: true };
  if (!failure.requestSent) return { costNanoUsd: 0, costKnown: true };
  if (failure.httpStatus !== undefined && failure.httpStatus >= 400)
    return { costNanoUsd: 0, costKnown: true };
  return { costNanoUsd: bound, costKnown: false };
}
