// The soak's audit of calls: defined outcomes, records consistent with them, and costs computed independently.
import type { Config } from '../../src/config/config';
import type { FakeBilledUsage, FakeProvider, RandomFaultKind } from '../../src/fake-provider';
import { GenerationRequestSchema } from '../../src/config/request';
import { estimateInputTokens } from '../../src/routing/estimate-tokens';
import type { AttemptRecord } from '../../src/routing/routing-record';
import { SOAK_MODELS, soakModel, type SoakPrices } from './soak-config';
import { soakCallInput } from './soak-plan';
import type { SoakCallResult } from './soak-runner';

/** Every end a soak call may reach: success or a typed failure that the routes and faults can cause. */
export const DEFINED_OUTCOMES = [
  'Succeeded',
  'AllTargetsFailed',
  'BudgetExceeded',
  'CircuitOpen',
  'DeadlineExceeded',
  'ContentRefused',
] as const;

/** the failure-class table, written out here rather than read from the product: classes that fail over and count. */
const FAILOVER_CLASSES = [
  'rate_limited',
  'quota_exhausted',
  'unavailable',
  'timeout',
  'authentication',
  'invalid_response',
];
export const COUNTED_CLASSES = FAILOVER_CLASSES;
const REFUSAL_CLASSES = ['refused', 'content_policy'];

/** Nano-USD per token at `usdPerMillion`: the soak's prices are all whole numbers of them. */
function nanoPerToken(usdPerMillion: number): number {
  const nano = usdPerMillion * 1_000;
  if (!Number.isInteger(nano)) throw new Error(`soak price ${usdPerMillion} is not whole nano-USD per token`);
  return nano;
}

export function usageCostNano(
  prices: SoakPrices,
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number },
): number {
  return (
    usage.inputTokens * nanoPerToken(prices.inputUsdPerMillion) +
    usage.cachedInputTokens * nanoPerToken(prices.cachedInputUsdPerMillion) +
    usage.outputTokens * nanoPerToken(prices.outputUsdPerMillion)
  );
}

/** An attempt's worst case: the design's input estimate at the full input price plus the whole output cap. */
export function boundNano(prices: SoakPrices, result: SoakCallResult): number {
  const request = GenerationRequestSchema.parse(
    soakCallInput(result.call, { tight: 'x', roomy: 'x', tracked: 'x' }).request,
  );
  return usageCostNano(prices, {
    inputTokens: estimateInputTokens(request),
    cachedInputTokens: 0,
    outputTokens: result.call.maxOutputTokens,
  });
}

/** What an attempt must have cost: a number, or `reported` (a refusal's billed usage, checked against the fake). */
export type ExpectedCharge = { readonly nano: number; readonly known: boolean } | 'reported';

export function expectedCharge(result: SoakCallResult, attempt: AttemptRecord): ExpectedCharge {
  const prices = soakModel(attempt.model).prices;
  if (attempt.outcome === 'skipped') return { nano: 0, known: true };
  if (attempt.outcome === 'succeeded') {
    // Only the last attempt can succeed, and its usage came back with the answer.
    return { nano: usageCostNano(prices, result.usage!), known: true };
  }
  if (REFUSAL_CLASSES.includes(attempt.failureClass ?? '')) return 'reported';
  // Providers do not bill an HTTP error answer.
  if (attempt.httpStatus !== undefined && attempt.httpStatus >= 400) return { nano: 0, known: true };
  // Sent, and no usage came back (timeout, reset, unreadable body): the whole bound.
  return { nano: boundNano(prices, result), known: false };
}

/** The independent expectation of what each call cost, with every attempt whose record disagrees. */
export interface CostAudit {
  /** Expected charge of each result, by index in the results. */
  readonly expectedByCall: readonly number[];
  readonly mismatches: readonly string[];
  /** Per model: known charges (answers and refusals) and unknown ones (full bounds), in nano-USD. */
  readonly byModel: Readonly<Record<string, { known: number; unknown: number }>>;
}

export function auditCosts(results: readonly SoakCallResult[]): CostAudit {
  const mismatches: string[] = [];
  const byModel: Record<string, { known: number; unknown: number }> = Object.fromEntries(
    SOAK_MODELS.map((model) => [model.model, { known: 0, unknown: 0 }]),
  );
  const expectedByCall = results.map((result) => {
    const attempts = result.record?.attempts ?? [];
    let total = 0;
    for (const attempt of attempts) {
      const expected = expectedCharge(result, attempt);
      const where = `call ${result.call.index} attempt ${attempt.attempt} (${attempt.model}, ${attempt.outcome} ${attempt.failureClass ?? ''})`;
      if (expected === 'reported') {
        if (!attempt.costKnown || attempt.costNanoUsd <= 0)
          mismatches.push(
            `${where}: a refusal must be charged its reported usage, got ${attempt.costNanoUsd}`,
          );
        total += attempt.costNanoUsd;
        byModel[attempt.model]!.known += attempt.costNanoUsd;
        continue;
      }
      if (attempt.costNanoUsd !== expected.nano || attempt.costKnown !== expected.known) {
        mismatches.push(
          `${where}: recorded ${attempt.costNanoUsd} (known ${attempt.costKnown}), expected ${expected.nano} (known ${expected.known})`,
        );
      }
      total += expected.nano;
      byModel[attempt.model]![expected.known ? 'known' : 'unknown'] += expected.nano;
    }
    if (result.record && result.record.totalCostNanoUsd !== total) {
      mismatches.push(
        `call ${result.call.index}: record total ${result.record.totalCostNanoUsd}, attempts add up to ${total}`,
      );
    }
    return total;
  });
  return { expectedByCall, mismatches, byModel };
}

/** What the fake billed for `model`, priced by the soak config. */
export function billedNano(model: string, billed: FakeBilledUsage): number {
  return usageCostNano(soakModel(model).prices, billed);
}

/** The failure classes a route lets fail over: the failure-class table, narrowed by its `failoverOn`. */
function failoverClasses(config: Config, route: string): string[] {
  return config.routes[route]!.failoverOn ?? FAILOVER_CLASSES;
}

/** Whether each call's record fits the way it ended; one line per call that does not. */
export function auditOutcomes(config: Config, results: readonly SoakCallResult[]): string[] {
  const problems: string[] = [];
  for (const result of results) {
    const problem = (text: string) =>
      problems.push(`call ${result.call.index} (${result.call.route}, ${result.outcome}): ${text}`);
    if (!(DEFINED_OUTCOMES as readonly string[]).includes(result.outcome)) {
      problem(`not a defined end: ${result.message ?? ''}`.slice(0, 600));
      continue;
    }
    const record = result.record;
    if (!record) {
      problem('no routing record');
      continue;
    }
    const route = config.routes[result.call.route]!;
    const attempts = record.attempts;
    const requests = attempts.filter((attempt) => attempt.outcome !== 'skipped');
    const last = attempts[attempts.length - 1];
    if (record.route !== result.call.route) problem(`record names route ${record.route}`);
    if (attempts.length > route.maxAttempts)
      problem(`${attempts.length} attempts over the cap ${route.maxAttempts}`);
    if (record.fallbacks !== Math.max(0, requests.length - 1)) problem(`fallbacks ${record.fallbacks}`);
    // Every failure before the last attempt must be one the route fails over on, or the walk would have stopped.
    for (const attempt of attempts.slice(0, -1)) {
      if (attempt.outcome === 'succeeded')
        problem(`attempt ${attempt.attempt} succeeded but the walk went on`);
      if (
        attempt.outcome === 'failed' &&
        !failoverClasses(config, result.call.route).includes(attempt.failureClass!)
      )
        problem(
          `attempt ${attempt.attempt} failed with ${attempt.failureClass}, which does not fail over here`,
        );
    }
    switch (result.outcome) {
      case 'Succeeded':
        if (last?.outcome !== 'succeeded') problem('the last attempt did not succeed');
        if (record.servedBy?.model !== last?.model) problem(`served by ${record.servedBy?.model}`);
        break;
      case 'ContentRefused':
        if (!REFUSAL_CLASSES.includes(last?.failureClass ?? ''))
          problem(`last attempt ${last?.failureClass}`);
        break;
      case 'BudgetExceeded':
        if (result.call.scopeKind === 'none') problem('no budget scope, yet BudgetExceeded');
        if (requests.length > 0) problem(`${requests.length} requests made`);
        if (!attempts.some((attempt) => attempt.skipReason === 'over_budget')) problem('no over_budget skip');
        break;
      case 'CircuitOpen':
        if (!attempts.every((attempt) => attempt.skipReason === 'circuit_open'))
          problem('an attempt other than a circuit_open skip');
        break;
      case 'DeadlineExceeded':
        if (route.deadlineMs === undefined) problem('the route has no deadline');
        break;
      case 'AllTargetsFailed':
        if (requests.length === 0) problem('no request made');
        if (attempts.some((attempt) => attempt.outcome === 'succeeded')) problem('an attempt succeeded');
        break;
    }
    if (result.outcome !== 'Succeeded' && record.servedBy) problem('a failed call names a serving target');
  }
  return problems;
}

/** How a fault kind shows in an attempt record. */
const SIGNATURE_OF_FAULT: Readonly<Record<RandomFaultKind, string>> = {
  answer: 'succeeded',
  rate_limited: 'rate_limited 429',
  server_error: 'unavailable 5xx',
  bad_gateway: 'unavailable 5xx',
  overloaded: 'unavailable 5xx',
  hang: 'timeout',
  reset: 'unavailable no response',
  refusal: 'refused',
  invalid_json: 'invalid_response',
};

function signatureOfAttempt(attempt: AttemptRecord): string {
  if (attempt.outcome === 'succeeded') return 'succeeded';
  switch (attempt.failureClass) {
    case 'rate_limited':
      return `rate_limited ${attempt.httpStatus ?? 'no response'}`;
    case 'unavailable':
      return attempt.httpStatus === undefined
        ? 'unavailable no response'
        : attempt.httpStatus >= 500
          ? 'unavailable 5xx'
          : `unavailable ${attempt.httpStatus}`;
    case 'content_policy':
      return 'refused';
    default:
      return attempt.failureClass ?? attempt.outcome;
  }
}

function tally(items: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of [...items].sort()) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

export interface FakeTrafficAudit {
  /** Per model: what the fake served (by the record signature it should leave) and what the records show. */
  readonly byModel: Readonly<
    Record<string, { served: Record<string, number>; recorded: Record<string, number>; requests: number }>
  >;
  /** Models whose served faults and recorded attempts differ. */
  readonly differing: readonly string[];
}

/** Matches the faults the fake served to each model against the attempts the records show for it. */
export function auditFakeTraffic(fake: FakeProvider, results: readonly SoakCallResult[]): FakeTrafficAudit {
  const attempts = results.flatMap((result) => result.record?.attempts ?? []);
  const byModel: Record<
    string,
    { served: Record<string, number>; recorded: Record<string, number>; requests: number }
  > = {};
  const differing: string[] = [];
  for (const model of SOAK_MODELS) {
    const served = tally(
      fake.randomFaultsServed(model.wire, model.model).map((kind) => SIGNATURE_OF_FAULT[kind]),
    );
    const recorded = tally(
      attempts
        .filter((attempt) => attempt.model === model.model && attempt.outcome !== 'skipped')
        .map(signatureOfAttempt),
    );
    byModel[model.model] = { served, recorded, requests: fake.requestsFor(model.model).length };
    if (JSON.stringify(served) !== JSON.stringify(recorded)) differing.push(model.model);
  }
  return { byModel, differing };
}
