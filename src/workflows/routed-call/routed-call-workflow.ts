// The routed-call workflow: walks a route's targets, one activity per attempt, and records each. Workflow code.
import {
  ApplicationFailure,
  CancelledFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { SwitchyardActivities } from '../../activities';
import {
  RoutedCallInputSchema,
  type RoutedCallInput,
  type RoutedCallInputValue,
} from '../../config/routed-call-input';
import type { ResolvedRoute } from '../../config/resolved-route';
import { failsOver, planAttempts, type PlannedAttempt } from '../../routing/attempt-plan';
import { failedAttemptCharge } from '../../routing/attempt-cost';
import { estimateInputTokens } from '../../routing/estimate-tokens';
import { FailureClass } from '../../routing/failure-class';
import { addNano, attemptBound, costOfUsage, nanoToUsd } from '../../routing/money';
import { renderAttemptsMarkdown } from '../../routing/render-attempts';
import {
  AttemptOutcome,
  RoutedCallFailureType,
  type AttemptRecord,
  type RoutedCallResult,
  type RoutingRecord,
} from '../../routing/routing-record';
import { attemptsQuery, CANCELLED_RECORD_MEMO } from '../definitions';
import {
  costUsdAttribute,
  fallbacksAttribute,
  outcomeAttribute,
  routeAttribute,
  servedByAttribute,
} from '../search-attributes';
import { classifyAttemptFailure } from './attempt-failure';
import { admitEverything, type AttemptGates } from './gates';
import { failureTypeForStop, routingFailure } from './routing-failure';

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

function parseInput(rawInput: RoutedCallInputValue): RoutedCallInput {
  const parsed = RoutedCallInputSchema.safeParse(rawInput);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.join('.') ?? '';
  throw ApplicationFailure.create({
    type: RoutedCallFailureType.invalidRequest,
    message: `invalid routed-call input:\n${z.prettifyError(parsed.error)}`,
    nonRetryable: true,
    details: [{ field }],
  });
}

export async function routedCallWorkflow(rawInput: RoutedCallInputValue): Promise<RoutedCallResult> {
  const input = parseInput(rawInput);
  const route = await resolveRoute(input.route);
  return new RouteWalk(route, input, admitEverything).run();
}

/** One walk over a resolved route; holds the attempts recorded so far. */
class RouteWalk {
  private readonly attempts: AttemptRecord[] = [];
  private readonly startedAtMs = Date.now();
  private readonly deadlineAtMs: number | undefined;
  private readonly boundNanoUsd: (targetIndex: number) => number;

  constructor(
    private readonly route: ResolvedRoute,
    private readonly input: RoutedCallInput,
    private readonly gates: AttemptGates,
  ) {
    const deadlines = [route.deadlineMs, input.deadlineMs].filter(
      (value): value is number => value !== undefined,
    );
    this.deadlineAtMs = deadlines.length ? this.startedAtMs + Math.min(...deadlines) : undefined;
    const inputTokens = estimateInputTokens(input.request);
    this.boundNanoUsd = (targetIndex) =>
      attemptBound(this.route.targets[targetIndex]!.prices, inputTokens, this.input.request.maxOutputTokens);
    setHandler(attemptsQuery, () => this.attempts);
  }

  async run(): Promise<RoutedCallResult> {
    upsertSearchAttributes([
      { key: routeAttribute, value: this.route.name },
      { key: outcomeAttribute, value: 'running' },
    ]);
    this.publishDetails();
    try {
      return await this.walk();
    } catch (error) {
      if (isCancellation(error)) {
        const record = this.record();
        this.finish('Cancelled', record);
        // A cancelled workflow's close event has no room for details, so the record goes to the memo.
        upsertMemo({ [CANCELLED_RECORD_MEMO]: record });
        throw new CancelledFailure('routed call cancelled by the caller', [record]);
      }
      if (error instanceof ApplicationFailure && error.type) this.finish(error.type);
      throw error;
    }
  }

  private async walk(): Promise<RoutedCallResult> {
    const plan = planAttempts(this.route);
    for (const [position, planned] of plan.entries()) {
      const remainingMs = this.remainingMs();
      if (remainingMs !== undefined && remainingMs < MIN_ATTEMPT_MS) {
        throw this.failure(
          RoutedCallFailureType.deadlineExceeded,
          'the call deadline leaves no time for another attempt',
        );
      }
      const target = this.route.targets[planned.targetIndex]!;
      const decision = await this.gates.admit(this.route, target);
      if (!decision.admitted) {
        this.addAttempt({
          planned,
          outcome: AttemptOutcome.skipped,
          skipReason: decision.reason,
          latencyMs: 0,
          costNanoUsd: 0,
          costKnown: true,
        });
        continue;
      }
      const answer = await this.attempt(planned, remainingMs);
      if (answer) return answer;
      const next = plan[position + 1];
      const last = this.attempts[this.attempts.length - 1]!;
      if (next && next.targetIndex === planned.targetIndex) await this.backoff(next, last.retryAfterMs);
    }
    if (this.remainingMs() !== undefined && this.remainingMs()! < MIN_ATTEMPT_MS) {
      throw this.failure(
        RoutedCallFailureType.deadlineExceeded,
        'the call deadline passed before any target answered',
      );
    }
    throw this.failure(
      RoutedCallFailureType.allTargetsFailed,
      `all ${this.attempts.length} attempts on route ${this.route.name} failed`,
    );
  }

  /** Runs one attempt; returns the result on success, undefined to go on, or throws to stop the walk. */
  private async attempt(
    planned: PlannedAttempt,
    remainingMs: number | undefined,
  ): Promise<RoutedCallResult | undefined> {
    const target = this.route.targets[planned.targetIndex]!;
    const timeoutMs = Math.min(target.timeoutMs, remainingMs ?? Number.POSITIVE_INFINITY);
    const startedAt = Date.now();
    try {
      const success = await callProvider.executeWithOptions(
        {
          startToCloseTimeout: timeoutMs + ACTIVITY_TIMEOUT_GRACE_MS,
          heartbeatTimeout: this.route.heartbeatTimeoutMs,
          retry: { maximumAttempts: 1 },
          summary: `#${this.attempts.length + 1} ${target.provider}/${target.model}`,
        },
        [{ target, request: this.input.request, timeoutMs, stream: this.input.stream }],
      );
      const costNanoUsd = costOfUsage(target.prices, success.result.usage);
      await this.gates.settle({ target, succeeded: true, costNanoUsd, costKnown: true });
      this.addAttempt({
        planned,
        outcome: AttemptOutcome.succeeded,
        latencyMs: success.latencyMs,
        costNanoUsd,
        costKnown: true,
        ...(success.result.requestId ? { requestId: success.result.requestId } : {}),
      });
      const { provider: _provider, model: _model, ...answer } = success.result;
      const record = this.record({
        targetIndex: planned.targetIndex,
        provider: target.provider,
        model: target.model,
      });
      this.finish('succeeded', record);
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
        this.boundNanoUsd(planned.targetIndex),
      );
      this.addAttempt({
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
      if (failure.failureClass === FailureClass.cancelled) throw error;
      await this.gates.settle({ target, succeeded: false, failureClass: failure.failureClass, ...charge });
      if (!failsOver(this.route, failure.failureClass)) {
        throw this.failure(
          failureTypeForStop(failure.failureClass),
          `${failure.failureClass} does not fail over`,
        );
      }
      return undefined;
    }
  }

  /** Waits before retrying the same target: its Retry-After when given, else a doubling backoff. */
  private async backoff(next: PlannedAttempt, retryAfterMs: number | undefined): Promise<void> {
    const wanted = retryAfterMs ?? RETRY_BACKOFF_MS * 2 ** (next.retry - 1);
    const remaining = this.remainingMs();
    const waitMs = Math.min(
      wanted,
      MAX_RETRY_WAIT_MS,
      remaining === undefined ? wanted : Math.max(0, remaining - MIN_ATTEMPT_MS),
    );
    if (waitMs > 0) await sleep(waitMs);
  }

  private remainingMs(): number | undefined {
    return this.deadlineAtMs === undefined ? undefined : this.deadlineAtMs - Date.now();
  }

  private addAttempt(
    entry: Omit<AttemptRecord, 'attempt' | 'targetIndex' | 'provider' | 'model' | 'retry' | 'startedAt'> & {
      planned: PlannedAttempt;
    },
  ): void {
    const { planned, ...rest } = entry;
    const target = this.route.targets[planned.targetIndex]!;
    this.attempts.push({
      attempt: this.attempts.length + 1,
      targetIndex: planned.targetIndex,
      provider: target.provider,
      model: target.model,
      retry: planned.retry,
      startedAt: new Date(Date.now() - rest.latencyMs).toISOString(),
      ...rest,
    });
    this.publishDetails();
  }

  private record(servedBy?: RoutingRecord['servedBy']): RoutingRecord {
    const totalCostNanoUsd = addNano(...this.attempts.map((attempt) => attempt.costNanoUsd));
    const sent = this.attempts.filter((attempt) => attempt.outcome !== AttemptOutcome.skipped).length;
    return {
      route: this.route.name,
      workflowId: workflowInfo().workflowId,
      ...(servedBy ? { servedBy } : {}),
      fallbacks: Math.max(0, sent - 1),
      totalCostNanoUsd,
      totalCostUsd: nanoToUsd(totalCostNanoUsd),
      attempts: [...this.attempts],
    };
  }

  private failure(type: RoutedCallFailureType, headline: string): ApplicationFailure {
    return routingFailure(type, headline, this.record());
  }

  private publishDetails(): void {
    setCurrentDetails(renderAttemptsMarkdown(this.route.name, this.attempts));
  }

  /** Sets the closing search attributes. */
  private finish(outcome: string, record: RoutingRecord = this.record()): void {
    upsertSearchAttributes([
      { key: outcomeAttribute, value: outcome },
      { key: fallbacksAttribute, value: record.fallbacks },
      { key: costUsdAttribute, value: record.totalCostUsd },
      ...(record.servedBy
        ? [{ key: servedByAttribute, value: `${record.servedBy.provider}/${record.servedBy.model}` }]
        : []),
    ]);
  }
}
