// Local activities through which routed calls reach breaker entities, via the worker's client. Worker side.
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { BreakerOutcome, BreakerStatus, breakerKey } from '../routing/breaker-state';
import { admit, AdmitDecision, type Admission } from '../routing/breaker-admission';
import { judgeBreaker } from '../routing/breaker-judgement';
import { pausedUntil, pausesTarget, reportedRetryAfterMs, retryAfterPauseMs } from '../routing/breaker-pause';
import { recordOutcome } from '../routing/breaker-transitions';
import {
  admitUpdate,
  BREAKER_WORKFLOW_TYPE,
  breakerStaticSummary,
  breakerWorkflowId,
  outcomeSignal,
  type BreakerAdmitInput,
  type BreakerOutcomeInput,
} from '../workflows/breaker/definitions';
import type { breakerWorkflow } from '../workflows/breaker/breaker-workflow';
import { BreakerHints, breakerHintTtlFromEnvironment, type BreakerHint } from './breaker-hints';
import { BreakerUnreachableError, createBreakerReach } from './breaker-reach';
import type {
  AdmitTargetInput,
  AdmitTargetResult,
  ReportBreakerOutcomeInput,
  ReportBreakerOutcomeResult,
} from './breaker-types';

export interface BreakerAccessDependencies {
  /** The worker's own Temporal client. */
  readonly client: Client;
  /** Task queue breaker entities are started on (the worker's own). */
  readonly taskQueue: string;
  /**
   * How long the worker trusts its view of a breaker, in milliseconds: the bound on how stale a decision
   * made without the entity can be. @default `SWITCHYARD_BREAKER_HINT_TTL_MS`, else 1000
   */
  readonly hintTtlMs?: number;
  /** How long one access of a breaker entity may take, in milliseconds. @default 3000 (see breaker-reach.ts) */
  readonly accessTimeoutMs?: number;
}

function healthyUntil(hint: BreakerHint, ttlMs: number): number | undefined {
  const { state } = hint;
  return state.status === BreakerStatus.closed && state.consecutiveFailures === 0
    ? hint.readAtMs + ttlMs
    : undefined;
}

/** Whether the entity must decide: a probe, or any decision that changes the breaker's state. */
function needsEntity(admission: Admission): boolean {
  return admission.changed || admission.decision === AdmitDecision.probe;
}

export function createBreakerAccess(dependencies: BreakerAccessDependencies) {
  const { client, taskQueue } = dependencies;
  const hints = new BreakerHints(dependencies.hintTtlMs ?? breakerHintTtlFromEnvironment());
  const { reach, readBreaker } = createBreakerReach({
    client,
    ...(dependencies.accessTimeoutMs !== undefined ? { accessTimeoutMs: dependencies.accessTimeoutMs } : {}),
  });

  function startOperation(provider: string, model: string) {
    return new WithStartWorkflowOperation<typeof breakerWorkflow>(BREAKER_WORKFLOW_TYPE, {
      workflowId: breakerWorkflowId(provider, model),
      taskQueue,
      args: [{ provider, model }],
      // Every worker and route shares the one running entity of this key.
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: breakerStaticSummary(provider, model),
    });
  }

  function fromHint(admission: Admission, hint: BreakerHint): AdmitTargetResult {
    const healthyUntilMs =
      admission.decision === AdmitDecision.allow ? healthyUntil(hint, hints.ttlMs) : undefined;
    return {
      decision: admission.decision,
      ...(admission.retryAtMs !== undefined ? { retryAtMs: admission.retryAtMs } : {}),
      decidedBy: 'hint',
      status: admission.state.status,
      ...(healthyUntilMs !== undefined ? { healthyUntilMs } : {}),
      ...(admission.paused ? { paused: true } : {}),
    };
  }

  /** Decides from a view with this worker's own pauses added, which the entity may not have applied yet. */
  function admitOnView(key: string, hint: BreakerHint, input: AdmitTargetInput): Admission {
    return admit(hints.withPause(key, hint.state), { ...admissionRequest(input), nowMs: Date.now() });
  }

  /**
   * Asks the breaker of `(provider, model)` whether `caller` may call it. A decision that leaves the breaker
   * as it is (closed → allow, open in cooldown → deny, someone else's live probe → deny) is made from the
   * worker's hint without touching the entity; a probe or a state change is decided by the entity through
   * update-with-start. Idempotent per caller, so the local activity may safely run more than once.
   */
  async function admitTarget(input: AdmitTargetInput): Promise<AdmitTargetResult> {
    try {
      return await decideAdmission(input);
    } catch (error) {
      if (!(error instanceof BreakerUnreachableError)) throw error;
      return {
        decision: AdmitDecision.deny,
        retryAtMs: error.retryAtMs,
        decidedBy: 'hint',
        status: BreakerStatus.open,
        unreachable: true,
      };
    }
  }

  /**
   * The admission a worker can make from its view alone (a closed breaker admits, an open one in cooldown
   * denies), or undefined when only the entity may decide (a probe, a state change) or it cannot be reached.
   * Changes nothing anywhere, so a call may take it speculatively and drop it.
   */
  async function peekAdmission(input: AdmitTargetInput): Promise<AdmitTargetResult | undefined> {
    const key = breakerKey(input.provider, input.model);
    try {
      const hint = await hints.current(key, () => readBreaker(input.provider, input.model));
      const local = admitOnView(key, hint, input);
      return needsEntity(local) ? undefined : fromHint(local, hint);
    } catch (error) {
      if (error instanceof BreakerUnreachableError) return undefined;
      throw error;
    }
  }

  function admissionRequest(input: AdmitTargetInput) {
    return {
      policy: input.policy,
      caller: input.caller,
      probeLeaseMs: input.probeLeaseMs,
      ...(input.force ? { force: true } : {}),
    };
  }

  async function decideAdmission(input: AdmitTargetInput): Promise<AdmitTargetResult> {
    const key = breakerKey(input.provider, input.model);
    const request = admissionRequest(input);
    const hint = await hints.current(key, () => readBreaker(input.provider, input.model));
    const local = admitOnView(key, hint, input);
    if (!needsEntity(local)) return fromHint(local, hint);

    return hints.oneAtATime(key, async () => {
      // The caller before this one in the queue may have just taken the probe: decide again on its answer.
      const latest = hints.fresh(key);
      if (latest && latest !== hint) {
        const again = admitOnView(key, latest, input);
        if (!needsEntity(again)) return fromHint(again, latest);
      }
      const readAtMs = Date.now();
      const admitInput: BreakerAdmitInput = request;
      const result = await reach(key, () =>
        client.workflow.executeUpdateWithStart(admitUpdate, {
          args: [admitInput],
          // Same caller, same update id: a retried local activity gets the first answer back.
          updateId: `admit:${input.caller}${input.force ? ':force' : ''}`,
          startWorkflowOperation: startOperation(input.provider, input.model),
        }),
      );
      const fresh = hints.remember(key, result.state, true, readAtMs);
      const healthyUntilMs =
        result.decision === AdmitDecision.allow ? healthyUntil(fresh, hints.ttlMs) : undefined;
      return {
        decision: result.decision,
        ...(result.retryAtMs !== undefined ? { retryAtMs: result.retryAtMs } : {}),
        decidedBy: 'entity',
        status: result.state.status,
        ...(healthyUntilMs !== undefined ? { healthyUntilMs } : {}),
        ...(result.paused ? { paused: true } : {}),
      };
    });
  }

  /**
   * Reports an attempt's outcome by signal-with-start, but only when it can change the breaker: always for
   * a probe and a counted failure, and for an answer only while the worker's view shows failures to clear.
   */
  /** Signal-with-start: the report id makes a repeated delivery (a retried local activity) count once. */
  async function sendOutcome(
    input: ReportBreakerOutcomeInput,
    report: Omit<BreakerOutcomeInput, 'reportId'>,
  ): Promise<void> {
    const outcomeInput: BreakerOutcomeInput = { ...report, reportId: `${input.caller}:${input.outcome}` };
    await client.workflow.signalWithStart<typeof breakerWorkflow, [BreakerOutcomeInput]>(
      BREAKER_WORKFLOW_TYPE,
      {
        workflowId: breakerWorkflowId(input.provider, input.model),
        taskQueue,
        args: [{ provider: input.provider, model: input.model }],
        signal: outcomeSignal,
        signalArgs: [outcomeInput],
        staticSummary: breakerStaticSummary(input.provider, input.model),
      },
    );
  }

  async function reportBreakerOutcome(input: ReportBreakerOutcomeInput): Promise<ReportBreakerOutcomeResult> {
    const key = breakerKey(input.provider, input.model);
    if (input.outcome === BreakerOutcome.cancelled && !input.wasProbe) return { sent: false };
    const retryAfterMs = pausesTarget(input.failureClass, input.retryAfterMs)
      ? reportedRetryAfterMs(input.retryAfterMs)
      : undefined;
    // A pause runs from now, when the failure is reported, however late the entity gets round to the report.
    const failedAtMs = Date.now();
    const report = {
      policy: input.policy,
      caller: input.caller,
      outcome: input.outcome,
      ...(input.failureClass !== undefined ? { failureClass: input.failureClass } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs, failedAtMs } : {}),
    };
    // A pause holds on this worker at once, before the entity hears of it: the next call here must not send.
    const pauseEndsAtMs =
      retryAfterMs !== undefined ? failedAtMs + retryAfterPauseMs(retryAfterMs) : undefined;
    if (pauseEndsAtMs !== undefined) hints.notePause(key, pauseEndsAtMs);
    const pause = pauseEndsAtMs !== undefined ? { probeAtMs: pauseEndsAtMs } : {};
    const view = () =>
      hints
        .current(key, () => readBreaker(input.provider, input.model))
        .catch((error: unknown) => {
          if (error instanceof BreakerUnreachableError) return undefined;
          throw error;
        });
    // A probe's end and a counted failure go to the entity whatever this worker's view says: they leave at
    // once, beside any read of an expired view, instead of after it (a slow breaker held them for a second).
    const alwaysSent = input.wasProbe || input.outcome === BreakerOutcome.countedFailure;
    const [hint] = await Promise.all([view(), alwaysSent ? sendOutcome(input, report) : Promise.resolve()]);
    if (!hint) {
      // Unreachable: an answer's report waits for a later view; a report that went has no view to update.
      hints.forget(key);
      return { sent: alwaysSent, ...pause };
    }
    const local = recordOutcome(hint.state, { ...report, nowMs: Date.now() });
    // When this route may next call the target, as this view sees it after the outcome: a patient call waits
    // for it rather than for a blind backoff.
    // A pause counts like an opening here: the route may not call the target before either ends.
    const after = judgeBreaker(local.state, input.policy);
    const openUntilMs =
      after.status !== BreakerStatus.closed && after.probeAtMs !== undefined ? after.probeAtMs : undefined;
    const callableAtMs = Math.max(
      openUntilMs ?? 0,
      pauseEndsAtMs ?? 0,
      pausedUntil(local.state, Date.now()) ?? 0,
    );
    const probe = callableAtMs > 0 ? { probeAtMs: callableAtMs } : {};
    if (!alwaysSent && !local.changed) return { sent: false, ...probe };
    if (!alwaysSent) await sendOutcome(input, report);
    // The entity applies the same rule to its own state; until the hint expires, assume it agreed. Except for
    // an opening: concurrent reports reach the entity in another order than they changed this view (a success
    // between two failures ends the streak there), so only the entity's own word may make callers skip a target.
    // Judged by the reporting route's own policy: an opening for it is the entity's to decide, not this view's.
    const opened =
      judgeBreaker(local.state, input.policy).status === BreakerStatus.open &&
      judgeBreaker(hint.state, input.policy).status === BreakerStatus.closed;
    if (local.changed && opened) hints.forget(key);
    else if (local.changed) hints.applyLocally(key, local.state);
    return { sent: true, ...probe };
  }

  return { admitTarget, peekAdmission, reportBreakerOutcome };
}
