// The budget ledger entity: one long-lived workflow per scope; reserves, settles, expires budget. Workflow code.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  upsertMemo,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { EntityActivities } from '../../activities';
import { z } from 'zod';
import { applyConfigLimit, setOperatorLimit } from '../../routing/ledger-limits';
import { ledgerSnapshot } from '../../routing/ledger-snapshot';
import {
  advanceClock,
  claimFromAllowance,
  createLedgerState,
  holdsAllowances,
  nextWakeAt,
  reconcileReservation,
  reconcilingReservations,
  releaseReservation,
  reserveBatch,
  settleReservation,
  type CloseEffect,
  type LedgerState,
  type Reconciliation,
  type ReservationDecision,
} from '../../routing/ledger-state';
import {
  AllowanceClaimsSchema,
  claimSignal,
  ClaimsOnlySchema,
  DEFAULT_CONTINUE_AS_NEW_AFTER_MESSAGES,
  LedgerMessagesSchema,
  LedgerWorkflowInputSchema,
  LimitChangeSchema,
  ReleaseSchema,
  RESERVE_REFUSED_FAILURE_TYPE,
  ReserveBatchSchema,
  releaseSignal,
  reserveUpdate,
  SettlementSchema,
  setLimitUpdate,
  settleSignal,
  snapshotQuery,
  messagesUpdate,
  type LedgerMessages,
  type LedgerWorkflowInput,
  type ReserveBatch,
} from './ledger-definitions';

/** Patch id of reconciling expired leases from the holder's record (see `reconcileExpired`). */
const LEDGER_RECONCILE_PATCH = 'ledger-reconcile';
/** Patch id of granting allowances to workers (see `allowancesOn`). */
const LEDGER_ALLOWANCES_PATCH = 'ledger-allowances';
/** Reservations one reconcile activity reads at most. */
const MAX_RECONCILED_AT_ONCE = 100;

// A holder's record is read with the worker's client; a failing read is retried, then the reservation is
// charged in full.
const { reconcileReservations } = proxyActivities<EntityActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

function invalidMessage(what: string, error: z.ZodError): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'InvalidLedgerMessage',
    message: `invalid ${what}:\n${z.prettifyError(error)}`,
    nonRetryable: true,
  });
}

export async function ledgerWorkflow(rawInput: LedgerWorkflowInput): Promise<void> {
  const parsedInput = LedgerWorkflowInputSchema.safeParse(rawInput);
  if (!parsedInput.success) throw invalidMessage('ledger input', parsedInput.error);
  const input = parsedInput.data;
  let state: LedgerState =
    input.carried ?? createLedgerState(input.scope, Date.now(), { windowMs: input.windowMs ?? null });
  // Runs recorded before reconciling charged every expired lease in full at once; they replay that way.
  if (patched(LEDGER_RECONCILE_PATCH)) state = { ...state, leaseExpiry: 'reconcile' };
  let messagesThisRun = 0;
  /** Reservations whose holder's record is being read right now. */
  const reconcilingNow = new Set<string>();
  let reconciled = false;
  const continueAsNewAfter = input.continueAsNewAfterMessages ?? DEFAULT_CONTINUE_AS_NEW_AFTER_MESSAGES;
  const mustContinueAsNew = () =>
    messagesThisRun >= continueAsNewAfter || workflowInfo().continueAsNewSuggested;

  // Allowances came with a patch: a run recorded before it answered an ask as a plain reservation, and replays
  // so. A run that grants one also upserts a memo, a command code from before allowances never gives: such code
  // then cannot replay the run (a nondeterminism error fails its task, which waits for a newer worker) instead of
  // taking the allowance for a plain reservation and dropping the claims on it. No run carries an allowance over
  // continue-as-new (see the loop), so no run's first task, which any worker may take, starts with one.
  let allowancesMarked = false;
  const allowancesOn = (batch: ReserveBatch): boolean =>
    batch.requests.some((request) => request.allowance) && patched(LEDGER_ALLOWANCES_PATCH);
  const markAllowances = (decisions: readonly ReservationDecision[]) => {
    if (allowancesMarked || !decisions.some((decision) => decision.granted && decision.allowance)) return;
    allowancesMarked = true;
    upsertMemo({ switchyardLedgerAllowances: true });
  };

  // Date.now() is the activation's time: the validator and the handler of one update see the same instant.
  // `live`: a handler's decision, which alone may take the patch (a validator runs only live, and gives no command).
  const decide = (batch: ReserveBatch, from: LedgerState = state, live = false) => {
    const declared = batch.declaredLimit ? applyConfigLimit(from, batch.declaredLimit, Date.now()) : from;
    const requests =
      live && !allowancesOn(batch)
        ? batch.requests.map(({ allowance: _plain, ...request }) => request)
        : batch.requests;
    // Near continue-as-new no allowance is granted, so the next run starts with none.
    return reserveBatch(declared, requests, Date.now(), { refuseAllowances: mustContinueAsNew() });
  };

  // Handlers must not throw (it would fail the ledger): bad or stray closes are logged and dropped. Defined
  // before any handler: a message that came with the start runs as soon as its handler is registered.
  const logEffect = (kind: string, reservationId: string, effect: CloseEffect) => {
    if (effect.kind === 'unmatched') {
      log.warn(`ledger ${input.scope}: ${kind} for unknown reservation`, { reservationId });
    }
    if (effect.kind === 'closed' && effect.overdraftNanoUsd > 0) {
      log.warn(`ledger ${input.scope}: overdraft`, {
        reservationId,
        overdraftNanoUsd: effect.overdraftNanoUsd,
      });
    }
  };
  // Settles and releases first: what they free is there for the reservations of the same batch.
  const closeAll = (messages: Pick<LedgerMessages, 'settlements' | 'releases'>): LedgerState => {
    let next = state;
    for (const settlement of messages.settlements) {
      const outcome = settleReservation(next, settlement, Date.now());
      next = outcome.state;
      logEffect('settle', settlement.reservationId, outcome.effect);
    }
    for (const { reservationId } of messages.releases) {
      const outcome = releaseReservation(next, reservationId, Date.now());
      next = outcome.state;
      logEffect('release', reservationId, outcome.effect);
    }
    return next;
  };

  // Handlers are registered before the first await, so an update-with-start that creates the ledger finds them.
  // The claim's is registered first, with what it needs above it: in a run's first activation the SDK runs the messages that came
  // before it in the order their handlers are registered, and a claim must be applied before a release or settle
  // that follows it in history (its worker trusted it, and sent).
  setHandler(claimSignal, (claims) => {
    let parsed = AllowanceClaimsSchema.safeParse(claims);
    if (!parsed.success) {
      // The claims are what their worker trusted and sent on: keep them even when what rides along is bad.
      log.warn(`ledger ${input.scope}: dropped invalid messages riding with claims`, {
        issues: parsed.error.issues,
      });
      parsed = ClaimsOnlySchema.safeParse(claims);
      if (!parsed.success) {
        log.warn(`ledger ${input.scope}: dropped invalid claims`, { issues: parsed.error.issues });
        return;
      }
    }
    state = closeAll({ settlements: parsed.data.settlements ?? [], releases: parsed.data.releases ?? [] });
    const outcome = claimFromAllowance(state, parsed.data, Date.now());
    state = outcome.state;
    messagesThisRun += 1;
    outcome.effects.forEach((effect, index) => {
      if (effect === 'claimed') return;
      // A void claim holds nothing; its worker sends nothing on it (it asks the ledger the usual way instead).
      log.info(`ledger ${input.scope}: void claim (${effect})`, {
        allowanceId: parsed.data.allowanceId,
        reservationId: parsed.data.claims[index]?.reservationId,
      });
    });
  });

  setHandler(
    reserveUpdate,
    (batch) => {
      // Synchronous on purpose. The SDK runs this right after the validator with nothing in between, so the
      // check and the deduction are one step; an `await` before the assignment below would let other
      // reservations pass the same check and overspend.
      const outcome = decide(batch, state, true);
      state = outcome.state;
      messagesThisRun += 1;
      markAllowances(outcome.decisions);
      return { decisions: outcome.decisions };
    },
    {
      validator: (batch) => {
        const parsed = ReserveBatchSchema.safeParse(batch);
        if (!parsed.success) throw invalidMessage('reserve batch', parsed.error);
        const { decisions } = decide(parsed.data);
        if (decisions.some((decision) => decision.granted)) return;
        // Nothing fits: refused before acceptance, so the refusal costs the ledger no history.
        throw ApplicationFailure.create({
          type: RESERVE_REFUSED_FAILURE_TYPE,
          message: `budget scope ${input.scope}: none of ${decisions.length} reservation(s) fits`,
          nonRetryable: true,
          details: [{ decisions }],
        });
      },
    },
  );

  setHandler(
    messagesUpdate,
    (messages) => {
      // Synchronous on purpose, as `reserve`: the check and the deduction are one step.
      const outcome = decide(messages, closeAll(messages), true);
      state = outcome.state;
      messagesThisRun += 1;
      markAllowances(outcome.decisions);
      return { decisions: outcome.decisions };
    },
    {
      validator: (messages) => {
        const parsed = LedgerMessagesSchema.safeParse(messages);
        if (!parsed.success) throw invalidMessage('ledger messages', parsed.error);
        const { requests, settlements, releases } = parsed.data;
        // A batch that closes anything must be applied; only a batch of reservations alone may be refused.
        if (settlements.length > 0 || releases.length > 0 || requests.length === 0) return;
        const { decisions } = decide(parsed.data);
        if (decisions.some((decision) => decision.granted)) return;
        throw ApplicationFailure.create({
          type: RESERVE_REFUSED_FAILURE_TYPE,
          message: `budget scope ${input.scope}: none of ${decisions.length} reservation(s) fits`,
          nonRetryable: true,
          details: [{ decisions }],
        });
      },
    },
  );

  setHandler(
    setLimitUpdate,
    (change) => {
      state = setOperatorLimit(state, change, Date.now());
      messagesThisRun += 1;
      return ledgerSnapshot(state);
    },
    {
      validator: (change) => {
        const parsed = LimitChangeSchema.safeParse(change);
        if (!parsed.success) throw invalidMessage('limit change', parsed.error);
      },
    },
  );

  setHandler(settleSignal, (settlement) => {
    const parsed = SettlementSchema.safeParse(settlement);
    if (!parsed.success) {
      log.warn(`ledger ${input.scope}: dropped invalid settle`, { issues: parsed.error.issues });
      return;
    }
    const outcome = settleReservation(state, parsed.data, Date.now());
    state = outcome.state;
    messagesThisRun += 1;
    logEffect('settle', parsed.data.reservationId, outcome.effect);
  });
  setHandler(releaseSignal, (release) => {
    const parsed = ReleaseSchema.safeParse(release);
    if (!parsed.success) {
      log.warn(`ledger ${input.scope}: dropped invalid release`, { issues: parsed.error.issues });
      return;
    }
    const outcome = releaseReservation(state, parsed.data.reservationId, Date.now());
    state = outcome.state;
    messagesThisRun += 1;
    logEffect('release', parsed.data.reservationId, outcome.effect);
  });

  setHandler(snapshotQuery, () => ledgerSnapshot(state));

  /**
   * Asks the holders of reservations whose lease ran out what their attempt cost: an attempt's own worker
   * settles it after the provider answered, without making its call wait, and a settle lost with that worker
   * is recovered here, exactly, from the call's record. No answer at all (the activity kept failing) charges
   * the whole reservation, as a lease that ran out always did.
   */
  const reconcileExpired = () => {
    const batch = reconcilingReservations(state)
      .filter(([reservationId]) => !reconcilingNow.has(reservationId))
      .slice(0, MAX_RECONCILED_AT_ONCE)
      .map(([reservationId, reservation]) => ({ reservationId, holder: reservation.holder }));
    if (batch.length === 0) return;
    for (const { reservationId } of batch) reconcilingNow.add(reservationId);
    const settleAll = (answers: readonly { reservationId: string; reconciliation: Reconciliation }[]) => {
      for (const { reservationId, reconciliation } of answers) {
        state = reconcileReservation(state, reservationId, reconciliation, Date.now());
      }
    };
    void reconcileReservations({ reservations: batch })
      .then(settleAll, () =>
        settleAll(
          batch.map(({ reservationId }) => ({
            reservationId,
            reconciliation: { kind: 'charge' as const, costNanoUsd: 0, costKnown: false },
          })),
        ),
      )
      .finally(() => {
        for (const { reservationId } of batch) reconcilingNow.delete(reservationId);
        reconciled = true;
      });
  };

  for (;;) {
    // Expires leases and closes an ended window, then sleeps on a durable timer until the next one.
    state = advanceClock(state, Date.now());
    reconcileExpired();
    // Continue as new only with no holder's record being read (the answer belongs to this run's state) and no
    // allowance open: asks are refused meanwhile, and what is open ends within seconds.
    const readyToContinue = () => mustContinueAsNew() && reconcilingNow.size === 0 && !holdsAllowances(state);
    if (readyToContinue()) break;
    const wakeAt = nextWakeAt(state);
    reconciled = false;
    // Wake early only when a new deadline comes before the timer's, so routine messages cost no timer events.
    const wakeEarlier = () =>
      readyToContinue() || reconciled || (nextWakeAt(state) ?? Infinity) < (wakeAt ?? Infinity);
    if (wakeAt === null) {
      await condition(wakeEarlier);
    } else {
      const summary = 'next lease expiry or window reset';
      await condition(wakeEarlier, Math.max(1, wakeAt - Date.now()), { summary });
    }
  }
  // Every handler is synchronous, so this holds at once; it stays as the guard against losing a message.
  await condition(allHandlersFinished);
  // Open reservations, the closed-id memory and the window all travel with the state: nothing is dropped.
  await continueAsNew<typeof ledgerWorkflow>({ ...input, carried: advanceClock(state, Date.now()) });
}
