// Money as integer nano-USD, and the cost of usage and the worst-case bound of an attempt. Pure.
import { SwitchyardError } from '../config/branded-error';
import type { Prices } from '../config/resolved-route';

/** Integer count of 10⁻⁹ USD. Integers keep sums exact; safe up to about 9 million USD. */
export type NanoUsd = number;

export const NANO_PER_USD = 1_000_000_000;

export class MoneyOverflowError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.MoneyOverflowError';

  override readonly name = 'MoneyOverflowError';
}

function checked(value: number): NanoUsd {
  if (!Number.isSafeInteger(value))
    throw new MoneyOverflowError(`amount ${value} nano-USD is not a safe integer`);
  return value;
}

/** USD → nano-USD, rounded up: estimates and charges must never come out low. */
export function usdToNanoCeil(usd: number): NanoUsd {
  return checked(Math.ceil(Math.round(usd * NANO_PER_USD * 1000) / 1000));
}

/** USD → nano-USD, rounded down: limits must never come out high. */
export function usdToNanoFloor(usd: number): NanoUsd {
  return checked(Math.floor(Math.round(usd * NANO_PER_USD * 1000) / 1000));
}

export function nanoToUsd(nano: NanoUsd): number {
  return nano / NANO_PER_USD;
}

export function addNano(...amounts: NanoUsd[]): NanoUsd {
  return checked(amounts.reduce((sum, amount) => sum + amount, 0));
}

/**
 * Cost of `tokens` at `usdPerMillion`, rounded up. 1 USD per million tokens is 10⁶ pico-USD per token, so a
 * price with up to six decimals is an exact integer in pico-USD; BigInt keeps the product exact.
 */
function tokenCost(tokens: number, usdPerMillion: number): NanoUsd {
  const picoUsdPerToken = BigInt(Math.round(usdPerMillion * 1_000_000));
  const pico = BigInt(tokens) * picoUsdPerToken;
  return checked(Number((pico + 999n) / 1000n));
}

export interface TokenCounts {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  /** @default 0 */
  readonly cacheWriteInputTokens?: number;
  /** @default 0 */
  readonly cacheWrite1hInputTokens?: number;
  readonly outputTokens: number;
}

/** The 5-minute and 1-hour cache-write prices; a route resolved before they existed charged writes as input. */
function cacheWritePrices(prices: Prices): { fiveMinutes: number; oneHour: number } {
  return {
    fiveMinutes: prices.cacheWriteUsdPerMillion ?? prices.inputUsdPerMillion,
    oneHour: prices.cacheWrite1hUsdPerMillion ?? prices.inputUsdPerMillion,
  };
}

/** What the provider charges for the reported usage, rounded up. */
export function costOfUsage(prices: Prices, usage: TokenCounts): NanoUsd {
  const writes = cacheWritePrices(prices);
  return addNano(
    tokenCost(usage.inputTokens, prices.inputUsdPerMillion),
    tokenCost(usage.cachedInputTokens, prices.cachedInputUsdPerMillion),
    tokenCost(usage.cacheWriteInputTokens ?? 0, writes.fiveMinutes),
    tokenCost(usage.cacheWrite1hInputTokens ?? 0, writes.oneHour),
    tokenCost(usage.outputTokens, prices.outputUsdPerMillion),
  );
}

/**
 * Worst case an attempt can cost: every prompt token at the dearest input price it may be billed at, plus the
 * whole output cap. Holds because the same `maxOutputTokens` is sent to the provider. With a cache breakpoint
 * any prompt token may be a cache write, so each is priced at the dearest write price the breakpoints allow
 * (a 1-hour breakpoint may still leave 5-minute writes before it).
 */
export function attemptBound(
  prices: Prices,
  estimatedInputTokens: number,
  maxOutputTokens: number,
  cacheTtl?: '5m' | '1h',
): NanoUsd {
  const writes = cacheWritePrices(prices);
  const inputPrice =
    cacheTtl === undefined
      ? prices.inputUsdPerMillion
      : Math.max(
          prices.inputUsdPerMillion,
          writes.fiveMinutes,
          cacheTtl === '1h' ? writes.oneHour : prices.inputUsdPerMillion,
        );
  return addNano(
    tokenCost(estimatedInputTokens, inputPrice),
    tokenCost(maxOutputTokens, prices.outputUsdPerMillion),
  );
}
