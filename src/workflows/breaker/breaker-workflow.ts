// The circuit-breaker entity: one long-lived workflow per (provider, model), shared by every route. Workflow code.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  metricMeter,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import { breakerKey, type BreakerState } from '../../routing/breaker-state';
import { admit } from '../../routing/breaker-admission';
import { judgeSeenPolicies } from '../../routing/breaker-judgement';
import { pausedUntil } from '../../routing/breaker-pause';
import { readBreakerState } from '../../routing/breaker-migration';
import { describePolicy } from '../../routing/breaker-policies';
import { recordOutcome, resetBreaker } from '../../routing/breaker-transitions';
import { SwitchyardMetric } from '../metric-names';
import {
  admitUpdate,
  BreakerAdmitInputSchema,
  BreakerOutcomeInputSchema,
  BreakerResetInputSchema,
  outcomeSignal,
  resetUpdate,
  stateQuery,
  type BreakerAdmitInput,
  type BreakerAdmitResult,
  type BreakerOutcomeInput,
  type BreakerSnapshot,
  type BreakerWorkflowInput,
} from './definitions';

const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 4_000;
const DEFAULT_CONTINUE_AS_NEW_AFTER_UPDATES = 1_000;
/** Report ids remembered for de-duplication; a retried report arrives within seconds, far fewer than this. */
const MAX_RECENT_REPORT_IDS = 500;

/** Validators run before anything is written, so a bad message is refused without touching history. */
function validated<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'InvalidBreakerMessage',
      message: `invalid ${what}:\n${z.prettifyError(parsed.error)}`,
      nonRetryable: true,
    });
  }
  return parsed.data;
}

class BreakerEntity {
  private state: BreakerState;
  private readonly recentReportIds: string[];
  private readonly seenReportIds: Set<string>;
  private updatesThisRun = 0;

  constructor(private readonly input: BreakerWorkflowInput) {
    // A state carried by earlier code (continue-as-new input written before per-route policies) is migrated here.
    this.state = readBreakerState(input.state);
    this.recentReportIds = [...(input.recentReportIds ?? [])];
    this.seenReportIds = new Set(this.recentReportIds);
  }

  admit(request: BreakerAdmitInput): BreakerAdmitResult {
    this.updatesThisRun += 1;
    // Synchronous from start to end: concurrent admits are applied one after another, so exactly one of them
    // can take the probe.
    const admission = admit(this.state, { ...request, nowMs: Date.now() });
    this.apply(admission.state);
    return {
      decision: admission.decision,
      ...(admission.retryAtMs !== undefined ? { retryAtMs: admission.retryAtMs } : {}),
      ...(admission.paused ? { paused: true } : {}),
      state: this.state,
    };
  }

  record(report: BreakerOutcomeInput): void {
    if (this.seenReportIds.has(report.reportId)) return;
    this.seenReportIds.add(report.reportId);
    this.recentReportIds.push(report.reportId);
    if (this.recentReportIds.length > MAX_RECENT_REPORT_IDS)
      this.seenReportIds.delete(this.recentReportIds.shift()!);
    const result = recordOutcome(this.state, { ...report, nowMs: Date.now() });
    if (result.changed) this.apply(result.state);
  }

  reset(by: string, detail: string | undefined): BreakerSnapshot {
    this.updatesThisRun += 1;
    this.apply(
      resetBreaker(this.state, { nowMs: Date.now(), by, ...(detail !== undefined ? { detail } : {}) }),
    );
    return this.snapshot();
  }

  snapshot(): BreakerSnapshot {
    return {
      provider: this.input.provider,
      model: this.input.model,
      key: breakerKey(this.input.provider, this.input.model),
      state: this.state,
      generation: this.input.generation ?? 0,
      historyLength: workflowInfo().historyLength,
    };
  }

  shouldContinueAsNew(): boolean {
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength >= (this.input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS) ||
      this.updatesThisRun >= (this.input.continueAsNewAfterUpdates ?? DEFAULT_CONTINUE_AS_NEW_AFTER_UPDATES)
    );
  }

  /** The next run's input: everything as plain JSON (no Map, Set or Date survives the payload converter). */
  carryOver(): BreakerWorkflowInput {
    return {
      ...this.input,
      state: this.state,
      recentReportIds: [...this.recentReportIds],
      generation: (this.input.generation ?? 0) + 1,
    };
  }

  publishDetails(): void {
    const { state } = this;
    const lines = [
      `**Breaker** ${breakerKey(this.input.provider, this.input.model)}: **${state.status}** (by the strictest policy seen)`,
      `consecutive counted failures: ${state.consecutiveFailures}`,
    ];
    if (state.reopenAtMs !== undefined && state.status === 'open')
      lines.push(`probe from: ${new Date(state.reopenAtMs).toISOString()}`);
    const pauseEndsAtMs = pausedUntil(state, Date.now());
    if (pauseEndsAtMs !== undefined)
      lines.push(`paused by a Retry-After until: ${new Date(pauseEndsAtMs).toISOString()}`);
    if (state.probe)
      lines.push(
        `probe: ${state.probe.holder} until ${new Date(state.probe.leaseExpiresAtMs).toISOString()}`,
      );
    // Each route judges the shared counts by its own policy; list how each seen policy judges them.
    const policies = judgeSeenPolicies(state).map(
      (policy) =>
        `- ${describePolicy(policy)}: ${policy.status}` +
        (policy.probeAtMs !== undefined && policy.status === 'open'
          ? `, probe from ${new Date(policy.probeAtMs).toISOString()}`
          : ''),
    );
    if (policies.length) lines.push(`policies seen:\n${policies.join('\n')}`);
    const last = state.transitions[state.transitions.length - 1];
    if (last) lines.push(`last transition: ${last.from} → ${last.to} (${last.reason}) at ${last.at}`);
    // Current details are served by a query, so they cost no history events.
    setCurrentDetails(lines.join('\n\n'));
  }

  private apply(next: BreakerState): void {
    if (next === this.state) return;
    this.countTransitions(next);
    this.state = next;
    this.publishDetails();
  }

  /** Counts the transitions `next` adds to the log (the log shares its older entries with the current state). */
  private countTransitions(next: BreakerState): void {
    const known = new Set(this.state.transitions);
    const added = next.transitions.filter((transition) => !known.has(transition));
    if (added.length === 0) return;
    // The workflow meter is silent during replay, so each transition is counted once.
    const counter = metricMeter.createCounter(
      SwitchyardMetric.breakerTransitions,
      undefined,
      'Circuit-breaker transitions',
    );
    for (const transition of added) {
      counter.add(1, {
        provider: this.input.provider,
        model: this.input.model,
        from: transition.from,
        to: transition.to,
        reason: transition.reason,
      });
    }
  }
}

/**
 * Holds the breaker of one `(provider, model)`. Every handler is synchronous, so each message is applied
 * whole before the next; the main function only waits for the moment to continue as new.
 */
export async function breakerWorkflow(input: BreakerWorkflowInput): Promise<void> {
  const entity = new BreakerEntity(input);
  entity.publishDetails();

  // The validator has accepted the request; parsing again applies the policy's defaults.
  setHandler(admitUpdate, (request) => entity.admit(BreakerAdmitInputSchema.parse(request)), {
    validator: (request) => void validated(BreakerAdmitInputSchema, request, 'admit request'),
  });
  setHandler(outcomeSignal, (report) => {
    // Signals have no validator, and throwing here would fail the workflow task: a malformed report is dropped.
    const parsed = BreakerOutcomeInputSchema.safeParse(report);
    if (!parsed.success) {
      log.warn('dropping a malformed breaker outcome report', { error: z.prettifyError(parsed.error) });
      return;
    }
    entity.record(parsed.data);
  });
  setHandler(resetUpdate, (request) => entity.reset(request.by, request.detail), {
    validator: (request) => void validated(BreakerResetInputSchema, request, 'reset request'),
  });
  setHandler(stateQuery, () => entity.snapshot());

  await condition(() => entity.shouldContinueAsNew());
  // Handlers are synchronous, but waiting keeps this correct if one ever awaits; continue-as-new from a
  // handler, or while one runs, would lose its message.
  await condition(allHandlersFinished);
  await continueAsNew<typeof breakerWorkflow>(entity.carryOver());
}
