// The routed-call workflow: walks a route's targets, one activity per attempt, and records each. Workflow code.
import {
  ApplicationFailure,
  CancelledFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertMemo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { SwitchyardActivities } from '../../activities';
import type { ResolvedRoute } from '../../config/resolved-route';
import {
  RoutedCallInputSchema,
  type RoutedCallInput,
  type RoutedCallInputValue,
} from '../../config/routed-call-input';
import { failedAttemptCharge, type AttemptCharge } from '../../routing/attempt-cost';
import { failsOver, planAttempts, type PlannedAttempt } from '../../routing/attempt-plan';
import { estimateInputTokens } from '../../routing/estimate-tokens';
import { FailureClass } from '../../routing/failure-class';
import { attemptBound, costOfUsage, usdToNanoFloor, type NanoUsd } from '../../routing/money';
import {
  AttemptOutcome,
  RoutedCallFailureType,
  SkipReason,
  type RoutedCallResult,
} from '../../routing/routing-record';
import { CANCELLED_RECORD_MEMO } from '../definitions';
import { classifyAttemptFailure } from './attempt-failure';
import { admitAttempt, settleAttempt, type AttemptPass, type BudgetShortfall } from './attempt-gates';
import { AttemptLog } from './attempt-log';
import {
  budgetExceededFailure,
  circuitOpenFailure,
  failureTypeForStop,
  routingFailure,
} from './routing-failure';

/** Below this many milliseconds left before the call's deadline, no further attempt is started. */
const MIN_ATTEMPT_MS = 250;
/** Extra start-to-close time over the SDK timeout, so the SDK reports its own timeout with details first. */
const ACTIVITY_TIMEOUT_GRACE_MS = 1_000;
/** Backoff before retrying the same target when it gave no Retry-After, doubled per retry. */
const RETRY_BACKOFF_MS = 200;
const MAX_RETRY_WAIT_MS = 10_000;

// Resolution is an idempotent look-up, so a local activity (at-least-once) suits it; its result is recorded.
const { resolveRoute } = proxyLocalActivities<SwitchyardActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});
// Provider attempts are never retried by Temporal: each retry is a further, visible attempt of the walk.
const { callProvider } = proxyActivities<SwitchyardActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

function invalidRequest(message: string, field: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: RoutedCallFailureType.invalidRequest,
    message,
    nonRetryable: true,
    details: [{ field }],
  });
}

function parseInput(rawInput: RoutedCallInputValue): RoutedCallInput {
  const parsed = RoutedCallInputSchema.safeParse(rawInput);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.join('.') ?? '';
  throw invalidRequest(`invalid routed-call input:\n${z.prettifyError(parsed.error)}`, field);
}

export async function routedCallWorkflow(rawInput: RoutedCallInputValue): Promise<RoutedCallResult> {
  const input = parseInput(rawInput);
  const route = await resolveRoute(input.route);
  if (route.requireBudget && input.budget === undefined) {
    throw invalidRequest(`route ${route.name} requires a budget scope and the call names none`, 'budget');
  }
  return new RouteWalk(route, input).run();
}

/** The skips of a walk that made no request, for choosing its failure. */
interface Skips {
  circuitOpenUntilMs: number[];
  shortfalls: BudgetShortfall[];
}

/** One walk over a resolved route. */
class RouteWalk {
  private readonly log: AttemptLog;
  private readonly deadlineAtMs: number | undefined;
  private readonly inputTokens: number;
  private readonly maxCostNanoUsd: NanoUsd | undefined;
  private readonly skips: Skips = { circuitOpenUntilMs: [], shortfalls: [] };

  constructor(
    private readonly route: ResolvedRoute,
    private readonly input: RoutedCallInput,
  ) {
    const deadlines = [route.deadlineMs, input.deadlineMs].filter(
      (value): value is number => value !== undefined,
    );
    this.deadlineAtMs = deadlines.length ? Date.now() + Math.min(...deadlines) : undefined;
    this.inputTokens = estimateInputTokens(input.request);
    this.maxCostNanoUsd = input.maxCostUsd === undefined ? undefined : usdToNanoFloor(input.maxCostUsd);
    this.log = new AttemptLog(route);
  }

  async run(): Promise<RoutedCallResult> {
    try {
      return await this.walk();
    } catch (error) {
      if (isCancellation(error)) {
        const record = this.log.record();
        this.log.finish(RoutedCallFailureType.cancelled, record);
        // A cancelled workflow's close event has no room for details, so the record goes to the memo.
        upsertMemo({ [CANCELLED_RECORD_MEMO]: record });
        throw new CancelledFailure('routed call cancelled by the caller', [record]);
      }
      if (error instanceof ApplicationFailure && error.type) this.log.finish(error.type);
      throw error;
    }
  }

  private async walk(): Promise<RoutedCallResult> {
    const plan = planAttempts(this.route);
    const skippedTargets = new Set<number>();
    for (const [position, planned] of plan.entries()) {
      // A target passed over by its breaker or the budget is not asked again for its retries.
      if (skippedTargets.has(planned.targetIndex)) continue;
      this.checkDeadline('the call deadline leaves no time for another attempt');
      const result = await this.tryTarget(planned);
      if (result === 'skipped') {
        skippedTargets.add(planned.targetIndex);
        continue;
      }
      if (result) return result;
      const next = plan[position + 1];
      if (next && next.targetIndex === planned.targetIndex) await this.backoff(next);
    }
    return this.afterPlan();
  }

  /** The plan ran out: probe an all-open route, or fail with the reason that fits the attempts made. */
  private async afterPlan(): Promise<RoutedCallResult> {
    this.checkDeadline('the call deadline passed before any target answered');
    if (this.log.requestsMade === 0 && this.skips.shortfalls.length > 0) {
      throw budgetExceededFailure(this.skips.shortfalls, this.log.record());
    }
    if (this.log.requestsMade === 0 && this.skips.circuitOpenUntilMs.length > 0) {
      if (this.route.whenAllOpen === 'probe_first') {
        const probed = await this.probeAllOpen();
        if (probed) return probed;
      }
      if (this.log.requestsMade === 0) {
        throw circuitOpenFailure(Math.min(...this.skips.circuitOpenUntilMs), this.log.record());
      }
    }
    const count = this.log.all.length;
    throw routingFailure(
      RoutedCallFailureType.allTargetsFailed,
      `all ${count} attempts on route ${this.route.name} failed`,
      this.log.record(),
    );
  }

  /**
   * Every breaker was open: take the probe of the first target whose probe is free, before its cooldown,
   * and walk on from there only if that attempt fails over.
   */
  private async probeAllOpen(): Promise<RoutedCallResult | undefined> {
    for (const [targetIndex] of this.route.targets.entries()) {
      if (this.log.all.length >= this.route.maxAttempts) return undefined;
      this.checkDeadline('the call deadline leaves no time for a probe');
      const result = await this.tryTarget({ targetIndex, retry: 0 }, { forceProbe: true });
      if (result === 'skipped') continue;
      return result;
    }
    return undefined;
  }

  /**
   * One target: admission, then the attempt. Returns the result on success, `'skipped'` when the breaker
   * or the budget passed over it, undefined to go on after a failure; throws to stop the walk.
   */
  private async tryTarget(
    planned: PlannedAttempt,
    options: { forceProbe?: boolean } = {},
  ): Promise<RoutedCallResult | 'skipped' | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const boundNanoUsd = this.boundNanoUsd(planned.targetIndex);
    const decision = await admitAttempt({
      route: this.route,
      target,
      attempt: this.log.nextAttemptNumber,
      boundNanoUsd,
      ...(this.input.budget !== undefined ? { scope: this.input.budget } : {}),
      ...(this.maxCostNanoUsd !== undefined
        ? { callAllowanceNanoUsd: this.maxCostNanoUsd - this.log.record().totalCostNanoUsd }
        : {}),
      ...(options.forceProbe ? { forceProbe: true } : {}),
    });
    if (!decision.admitted) {
      if (decision.reason === SkipReason.circuitOpen) this.skips.circuitOpenUntilMs.push(decision.retryAtMs);
      else this.skips.shortfalls.push(decision.shortfall);
      this.log.add({
        planned,
        outcome: AttemptOutcome.skipped,
        skipReason: decision.reason,
        latencyMs: 0,
        costNanoUsd: 0,
        costKnown: true,
      });
      return 'skipped';
    }
    return this.attempt(planned, decision.pass, boundNanoUsd);
  }

  /** Runs one admitted attempt; returns the result on success, undefined to go on, or throws to stop. */
  private async attempt(
    planned: PlannedAttempt,
    pass: AttemptPass,
    boundNanoUsd: NanoUsd,
  ): Promise<RoutedCallResult | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const remainingMs = this.remainingMs();
    const timeoutMs = Math.min(target.timeoutMs, remainingMs ?? Number.POSITIVE_INFINITY);
    const startedAt = Date.now();
    try {
      const success = await callProvider.executeWithOptions(
        {
          startToCloseTimeout: timeoutMs + ACTIVITY_TIMEOUT_GRACE_MS,
          heartbeatTimeout: this.route.heartbeatTimeoutMs,
          retry: { maximumAttempts: 1 },
          summary: `#${this.log.nextAttemptNumber} ${target.provider}/${target.model}`,
        },
        [{ target, request: this.input.request, timeoutMs, stream: this.input.stream }],
      );
      const charge: AttemptCharge = {
        costNanoUsd: costOfUsage(target.prices, success.result.usage),
        costKnown: true,
      };
      await settleAttempt(pass, { succeeded: true, charge });
      this.log.add({
        planned,
        outcome: AttemptOutcome.succeeded,
        latencyMs: success.latencyMs,
        ...charge,
        ...(success.result.requestId ? { requestId: success.result.requestId } : {}),
      });
      const { provider: _provider, model: _model, ...answer } = success.result;
      const record = this.log.record({
        targetIndex: planned.targetIndex,
        provider: target.provider,
        model: target.model,
      });
      this.log.finish('succeeded', record);
      return { answer, record };
    } catch (error) {
      const failure = classifyAttemptFailure(error);
      const details = failure.details;
      const charge = failedAttemptCharge(
        {
          requestSent: failure.requestSent,
          ...(details?.status !== undefined ? { httpStatus: details.status } : {}),
          ...(details?.usage ? { usage: details.usage } : {}),
        },
        target.prices,
        boundNanoUsd,
      );
      this.log.add({
        planned,
        outcome: AttemptOutcome.failed,
        failureClass: failure.failureClass,
        message: failure.message,
        latencyMs: details?.latencyMs ?? Date.now() - startedAt,
        ...charge,
        ...(details?.status !== undefined ? { httpStatus: details.status } : {}),
        ...(details?.providerCode !== undefined ? { providerCode: details.providerCode } : {}),
        ...(details?.retryAfterMs !== undefined ? { retryAfterMs: details.retryAfterMs } : {}),
        ...(details?.requestId !== undefined ? { requestId: details.requestId } : {}),
      });
      // Even a cancelled attempt pays for what it may have sent; the breaker is told it does not count.
      await settleAttempt(pass, { succeeded: false, failureClass: failure.failureClass, charge });
      if (failure.failureClass === FailureClass.cancelled) throw error;
      if (!failsOver(this.route, failure.failureClass)) {
        throw routingFailure(
          failureTypeForStop(failure.failureClass),
          `${failure.failureClass} does not fail over`,
          this.log.record(),
        );
      }
      return undefined;
    }
  }

  private boundNanoUsd(targetIndex: number): NanoUsd {
    const target = this.route.targets[targetIndex]!;
    return attemptBound(target.prices, this.inputTokens, this.input.request.maxOutputTokens);
  }

  /** Waits before retrying the same target: its Retry-After when given, else a doubling backoff. */
  private async backoff(next: PlannedAttempt): Promise<void> {
    const wanted = this.log.last?.retryAfterMs ?? RETRY_BACKOFF_MS * 2 ** (next.retry - 1);
    const remaining = this.remainingMs();
    const allowed = remaining === undefined ? wanted : Math.max(0, remaining - MIN_ATTEMPT_MS);
    const waitMs = Math.min(wanted, MAX_RETRY_WAIT_MS, allowed);
    if (waitMs > 0) await sleep(waitMs);
  }

  private remainingMs(): number | undefined {
    return this.deadlineAtMs === undefined ? undefined : this.deadlineAtMs - Date.now();
  }

  private checkDeadline(headline: string): void {
    const remaining = this.remainingMs();
    if (remaining !== undefined && remaining < MIN_ATTEMPT_MS) {
      throw routingFailure(RoutedCallFailureType.deadlineExceeded, headline, this.log.record());
    }
  }
}
