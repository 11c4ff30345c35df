// The attempts of one routed call: the query, the UI's current details, the record and the closing search attributes. Workflow code.
import { setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRoute } from '../../config/resolved-route';
import type { Usage } from '../../providers/types';
import type { PlannedAttempt } from '../../routing/attempt-plan';
import { addNano, nanoToUsd, type NanoUsd } from '../../routing/money';
import { renderAttemptsMarkdown } from '../../routing/render-attempts';
import { explainCall, type OrderExplanation } from '../../routing/routing-explanation';
import { AttemptOutcome, type AttemptRecord, type RoutingRecord } from '../../routing/routing-record';
import { attemptsQuery } from '../definitions';
import { recordAttemptMetrics, recordCallMetrics } from '../routed-call-metrics';
import {
  costUsdAttribute,
  fallbacksAttribute,
  outcomeAttribute,
  routeAttribute,
  servedByAttribute,
} from '../search-attributes';

/** What a caller says about an attempt; the log fills in its number, target and start time. */
export type AttemptEntry = Omit<
  AttemptRecord,
  'attempt' | 'targetIndex' | 'provider' | 'model' | 'retry' | 'round' | 'startedAt'
> & { readonly planned: PlannedAttempt };

export class AttemptLog {
  private readonly attempts: AttemptRecord[] = [];
  private round = 1;
  private roundStartsAt = 0;
  private waitingUntil: string | undefined;
  private explanation: OrderExplanation | undefined;

  constructor(
    private readonly route: ResolvedRoute,
    /**
     * `upsertOnlyMissing`: the starter usually sets the route and `running` at start, where they cost no
     * command; upsert them only when it did not (or named the route differently).
     */
    options: { readonly upsertOnlyMissing?: boolean } = {},
  ) {
    setHandler(attemptsQuery, () => this.attempts);
    const atStart = workflowInfo().typedSearchAttributes;
    const known = atStart.get(routeAttribute) === route.name && atStart.get(outcomeAttribute) === 'running';
    if (!(options.upsertOnlyMissing && known)) {
      upsertSearchAttributes([
        { key: routeAttribute, value: route.name },
        { key: outcomeAttribute, value: 'running' },
      ]);
    }
    this.publish();
  }

  /** The number the next attempt will get (1-based). */
  get nextAttemptNumber(): number {
    return this.attempts.length + 1;
  }

  get last(): AttemptRecord | undefined {
    return this.attempts[this.attempts.length - 1];
  }

  /** What the attempts so far cost, in nano-USD: the record's `totalCostNanoUsd`. */
  get costNanoUsd(): NanoUsd {
    return addNano(...this.attempts.map((attempt) => attempt.costNanoUsd));
  }

  /** When the earliest attempt so far started, epoch milliseconds (as a response's creation time reads it). */
  get firstStartedAtMs(): number | undefined {
    const starts = this.attempts.map((attempt) => Date.parse(attempt.startedAt)).filter(Number.isFinite);
    return starts.length > 0 ? Math.min(...starts) : undefined;
  }

  /** Attempts that sent (or tried to send) a request, as opposed to skips. */
  get requestsMade(): number {
    return this.attempts.filter((attempt) => attempt.outcome !== AttemptOutcome.skipped).length;
  }

  /** Requests made in the current round only. */
  get requestsMadeThisRound(): number {
    return this.attempts
      .slice(this.roundStartsAt)
      .filter((attempt) => attempt.outcome !== AttemptOutcome.skipped).length;
  }

  /** Attempts (skips included) recorded in the current round. */
  get attemptsThisRound(): number {
    return this.attempts.length - this.roundStartsAt;
  }

  get currentRound(): number {
    return this.round;
  }

  /** Shows in the UI that a patient call is waiting for its next round, until `untilMs`. */
  waitForRound(untilMs: number): void {
    this.waitingUntil = new Date(untilMs).toISOString();
    this.publish();
  }

  startNextRound(): void {
    this.round += 1;
    this.roundStartsAt = this.attempts.length;
    this.waitingUntil = undefined;
    this.publish();
  }

  /** The candidate order the walk follows: the record's explanation, its skips and chosen read from the attempts. */
  explain(order: OrderExplanation): void {
    this.explanation = order;
  }

  get all(): readonly AttemptRecord[] {
    return this.attempts;
  }

  /** Records an attempt; `answer` is what an answered attempt's provider said (its model and usage), for metrics. */
  add(entry: AttemptEntry, answer?: { readonly model: string; readonly usage: Usage }): void {
    const { planned, ...rest } = entry;
    const target = this.route.targets[planned.targetIndex]!;
    this.attempts.push({
      attempt: this.attempts.length + 1,
      targetIndex: planned.targetIndex,
      provider: target.provider,
      model: target.model,
      retry: planned.retry,
      round: this.round,
      startedAt: new Date(Date.now() - rest.latencyMs).toISOString(),
      ...rest,
    });
    recordAttemptMetrics(this.attempts[this.attempts.length - 1]!, {
      route: this.route.name,
      providerKind: target.providerKind,
      ...(answer ? { responseModel: answer.model, usage: answer.usage } : {}),
    });
    this.publish();
  }

  record(servedBy?: RoutingRecord['servedBy']): RoutingRecord {
    const totalCostNanoUsd = this.costNanoUsd;
    return {
      route: this.route.name,
      // A route changed at runtime carries its version; a config file's route has none.
      ...(this.route.version !== undefined ? { routeVersion: this.route.version } : {}),
      workflowId: workflowInfo().workflowId,
      ...(servedBy ? { servedBy } : {}),
      fallbacks: Math.max(0, this.requestsMade - 1),
      rounds: this.round,
      totalCostNanoUsd,
      totalCostUsd: nanoToUsd(totalCostNanoUsd),
      attempts: [...this.attempts],
      ...(this.explanation
        ? { explanation: explainCall(this.route, this.explanation, this.attempts, servedBy) }
        : {}),
    };
  }

  /** Sets the closing search attributes: the outcome (`succeeded` or the failure type) and the totals. */
  finish(outcome: string, record: RoutingRecord = this.record()): void {
    recordCallMetrics(outcome, record);
    upsertSearchAttributes([
      { key: outcomeAttribute, value: outcome },
      { key: fallbacksAttribute, value: record.fallbacks },
      { key: costUsdAttribute, value: record.totalCostUsd },
      ...(record.servedBy
        ? [{ key: servedByAttribute, value: `${record.servedBy.provider}/${record.servedBy.model}` }]
        : []),
    ]);
  }

  private publish(): void {
    const table = renderAttemptsMarkdown(this.route.name, this.attempts);
    const waiting = this.waitingUntil
      ? `\n\n**Waiting** for round ${this.round + 1} until ${this.waitingUntil} (patience)`
      : '';
    setCurrentDetails(table + waiting);
  }
}
