// Soak: N routed calls under seeded random provider faults, audited for defined ends, exact ledgers, breakers, memory.
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import type { BreakerView } from '../../src/client/breakers';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import type { LedgerSnapshot } from '../../src/routing/ledger-snapshot';
import { nanoToUsd } from '../../src/routing/money';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { createSwitchyardWorker } from '../../src/worker';
import { eventually } from '../support/eventually';
import { auditCosts, auditFakeTraffic, auditOutcomes, billedNano } from '../support/soak-audit';
import { auditBreaker, summarizeBreaker } from '../support/soak-breakers';
import { findTaskTrouble } from '../support/soak-histories';
import { SOAK_API_KEYS, SOAK_MODELS, soakConfig } from '../support/soak-config';
import { compareQuarters, forcedGc, sampleMemory, type MemorySample } from '../support/soak-memory';
import {
  planSoakCalls,
  SOAK_CONCURRENCY_LEVELS,
  SOAK_LIMITS_USD,
  type SoakScopeKind,
} from '../support/soak-plan';
import { runSoakCalls, type SoakCallResult } from '../support/soak-runner';
import {
  bundleSwitchyardWorkflows,
  connectForTest,
  uniqueName,
  type TemporalTestContext,
} from '../support/temporal';

/** Calls in the soak; CI runs the default. */
const CALLS = Number(process.env.SWITCHYARD_SOAK_CALLS ?? 1_000);
/** Seed of the fake's fault streams and of the call plan; printed so a failing run can be repeated. */
const SEED = Number(process.env.SWITCHYARD_SOAK_SEED ?? 20_261_129);
/** Heap after GC may grow this much from the second quarter of the run to the last one (warm-up excluded). */
const HEAP_GROWTH_FACTOR = 1.3;
/** RSS also counts the workflow threads' isolates, which the forced GC does not reach: a looser bound. */
const RSS_GROWTH_FACTOR = 2;
/** The soak itself is bounded by its calls' own timeouts; this only stops a wedged run eventually. */
const SOAK_TEST_TIMEOUT_MS = 45 * 60_000;

type BudgetedScope = Exclude<SoakScopeKind, 'none'>;

let temporal: TemporalTestContext;
let fake: FakeProvider;
let bundle: WorkflowBundlePath;

beforeAll(async () => {
  [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
});

afterAll(async () => {
  await fake?.close();
  await temporal?.close();
});

/** Breakers live on the server across test files: the soak starts from fresh ones for its models. */
async function terminateSoakBreakers(): Promise<void> {
  await Promise.all(
    SOAK_MODELS.map(async ({ provider, model }) => {
      try {
        await temporal.client.workflow
          .getHandle(breakerWorkflowId(provider, model))
          .terminate('soak isolation');
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }),
  );
}

function countBy(items: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
}

/** A limited scope may hold at most its limit in spend and reservations, unless an overdraft was recorded. */
function overLimit(snapshot: LedgerSnapshot): string | undefined {
  if (snapshot.limitNanoUsd === null || snapshot.overdraftNanoUsd > 0) return undefined;
  const held = snapshot.spentNanoUsd + snapshot.reservedNanoUsd;
  return held > snapshot.limitNanoUsd
    ? `${snapshot.scope}: spent ${snapshot.spentNanoUsd} + reserved ${snapshot.reservedNanoUsd} > limit ${snapshot.limitNanoUsd}`
    : undefined;
}

test(
  `soak: ${CALLS} routed calls under seeded random faults end defined, with exact ledgers, sane breakers and stable memory`,
  async () => {
    fake.randomFaults({ seed: SEED });
    const config = soakConfig(fake);
    await terminateSoakBreakers();
    const taskQueue = uniqueName('switchyard-soak');
    const worker = await createSwitchyardWorker({
      config,
      connection: temporal.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      providers: createProviderRegistry(config, { ...SOAK_API_KEYS }),
    });
    const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue, config });
    const scopes: Record<BudgetedScope, string> = {
      tight: uniqueName('soak-tight'),
      roomy: uniqueName('soak-roomy'),
      tracked: uniqueName('soak-tracked'),
    };
    const calls = planSoakCalls(CALLS, SEED);
    const gc = forcedGc();
    const memory: MemorySample[] = [];
    const budgetViolations: string[] = [];
    const progressEvery = Math.max(10, Math.round(CALLS / 10));
    const startedAt = Date.now();

    const run = await worker.runUntil(
      (async () => {
        await switchyard.ledgers.setLimit(scopes.tight, { limitUsd: SOAK_LIMITS_USD.tight });
        await switchyard.ledgers.setLimit(scopes.roomy, { limitUsd: SOAK_LIMITS_USD.roomy });
        memory.push(sampleMemory(0, gc));
        const results = await runSoakCalls({
          switchyard,
          calls,
          scopes,
          progressEvery,
          onProgress: async (completed) => {
            memory.push(sampleMemory(completed, gc));
            // Mid-run: reservations are open now, so this is where an over-grant would show.
            for (const scope of [scopes.tight, scopes.roomy]) {
              const snapshot = await switchyard.ledgers.get(scope);
              const violation = snapshot && overLimit(snapshot);
              if (violation) budgetViolations.push(`after ${completed} calls: ${violation}`);
            }
          },
        });
        const elapsedMs = Date.now() - startedAt;

        // No routed call may be left running: every workflow ended, whatever its callers saw.
        const runningQuery = `WorkflowType = '${ROUTED_CALL_WORKFLOW_TYPE}' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
        const running = await eventually(
          'no routed call left running',
          async () => (await temporal.client.workflow.count(runningQuery)).count,
          (count) => count === 0,
          { timeoutMs: 60_000, intervalMs: 1_000 },
        ).catch(async () => (await temporal.client.workflow.count(runningQuery)).count);

        // Settles are signals: give the ledgers a moment to apply the last ones before the final read.
        const ledgers = {} as Record<BudgetedScope, LedgerSnapshot | undefined>;
        for (const kind of Object.keys(scopes) as BudgetedScope[]) {
          ledgers[kind] = await eventually(
            `ledger ${kind} settled`,
            () => switchyard.ledgers.get(scopes[kind]),
            (snapshot) => snapshot === undefined || snapshot.openReservations.length === 0,
            { timeoutMs: 60_000, intervalMs: 500 },
          ).catch(() => switchyard.ledgers.get(scopes[kind]));
        }
        const breakers: BreakerView[] = [];
        for (const { provider, model } of SOAK_MODELS)
          breakers.push(await switchyard.breakers.get(`${provider}/${model}`));
        memory.push(sampleMemory(CALLS, gc));
        return { results, elapsedMs, running, ledgers, breakers };
      })(),
    );
    const { results, elapsedMs, running, ledgers, breakers } = run;
    // Histories are read from the server: no worker needed. A failed workflow task is hidden from the caller.
    const taskTrouble = await findTaskTrouble(
      temporal.client,
      results.map((result) => result.workflowId).filter((workflowId) => workflowId !== ''),
    );
    const failedTasks = taskTrouble.filter((trouble) => trouble.failedTasks > 0);
    const timedOutTasks = taskTrouble.reduce((sum, trouble) => sum + trouble.timedOutTasks, 0);

    // 1. Every call ended in a defined state whose record fits it.
    const outcomes = countBy(results.map((result: SoakCallResult) => result.outcome));
    const outcomeProblems = auditOutcomes(config, results);

    // 2. Ledgers: spend equals known costs plus full bounds of unknown ones, computed from the records.
    const costs = auditCosts(results);
    const expectedByScope = {} as Record<BudgetedScope, number>;
    for (const kind of Object.keys(scopes) as BudgetedScope[]) {
      expectedByScope[kind] = results
        .map((result, index) => (result.call.scopeKind === kind ? costs.expectedByCall[index]! : 0))
        .reduce((sum, cost) => sum + cost, 0);
    }
    const spentTotal = (Object.keys(scopes) as BudgetedScope[]).reduce(
      (sum, kind) => sum + (ledgers[kind]?.spentNanoUsd ?? 0),
      0,
    );
    const expectedTotal = Object.values(expectedByScope).reduce((sum, cost) => sum + cost, 0);

    // 3. The fake's view: the faults it served match the attempts recorded, and its bill matches the known costs.
    const traffic = auditFakeTraffic(fake, results);
    const billing = SOAK_MODELS.map(({ model }) => ({
      model,
      billed: billedNano(model, fake.billed(model)),
      ...costs.byModel[model]!,
    }));

    // 4. Breakers: each final state explained by the counted outcomes in the records.
    const breakerProblems = breakers.flatMap((view) => auditBreaker(config, view, results));

    // 5. Memory: heap after GC and RSS, second quarter against the last.
    const heap = compareQuarters(memory, CALLS, (sample) => sample.heapAfterGcMb);
    const rss = compareQuarters(memory, CALLS, (sample) => sample.rssMb);

    const usd = (nano: number) => nanoToUsd(nano).toFixed(6);
    const breakerSummary = Object.fromEntries(
      breakers.map((view) => {
        const summary = summarizeBreaker(view, results);
        return [
          view.model,
          `${summary.status} ${summary.openings}x open ${summary.probes} probes ${summary.countedFailures} counted ${summary.unreachableSkips} unreachable`,
        ];
      }),
    );
    const first = memory[0]!;
    const last = memory[memory.length - 1]!;
    console.log(
      `[reliability] soak: ${CALLS} calls, seed ${SEED}, outcomes ${JSON.stringify(outcomes)}, ` +
        `spent ${usd(spentTotal)} ${spentTotal === expectedTotal ? '==' : '!='} expected ${usd(expectedTotal)} USD (${spentTotal} / ${expectedTotal} nano), ` +
        `breakers ${JSON.stringify(breakerSummary)}, heap MB ${first.heapAfterGcMb}→${last.heapAfterGcMb} ` +
        `(Q2 ${heap.secondQuarterMb} → Q4 ${heap.lastQuarterMb}), rss MB ${first.rssMb}→${last.rssMb}, ` +
        `${failedTasks.length} calls with failed workflow tasks, ${timedOutTasks} timed-out tasks, ` +
        `${Math.round(elapsedMs / 1000)} s (${((CALLS * 1000) / elapsedMs).toFixed(1)} calls/s) at concurrency ${SOAK_CONCURRENCY_LEVELS.join('/')}`,
    );
    if (traffic.differing.length > 0 || outcomeProblems.length > 0 || costs.mismatches.length > 0) {
      console.log(
        `soak details: ${JSON.stringify({ traffic: traffic.byModel, billing, outcomeProblems: outcomeProblems.slice(0, 20), costMismatches: costs.mismatches.slice(0, 20), failedTasks: failedTasks.slice(0, 5) })}`,
      );
    }

    // Every guarantee is checked and every breach listed, so one run shows all that went wrong.
    const violations: string[] = [
      ...outcomeProblems,
      ...costs.mismatches,
      ...budgetViolations,
      ...breakerProblems,
    ];
    if (running !== 0) violations.push(`${running} routed calls still running after the soak`);
    for (const trouble of failedTasks)
      violations.push(
        `${trouble.workflowId}: ${trouble.failedTasks} failed workflow tasks (${trouble.firstFailure})`,
      );
    for (const kind of Object.keys(scopes) as BudgetedScope[]) {
      const snapshot = ledgers[kind];
      // A scope no call reserved on has no ledger, and then nothing may have been expected of it.
      const spent = snapshot?.spentNanoUsd ?? 0;
      if (spent !== expectedByScope[kind])
        violations.push(
          `ledger ${kind}: spent ${spent} nano, the records add up to ${expectedByScope[kind]}`,
        );
      if (!snapshot) continue;
      if (snapshot.openReservations.length > 0 || snapshot.reservedNanoUsd !== 0)
        violations.push(`ledger ${kind}: ${snapshot.openReservations.length} reservations left open`);
      const over = overLimit(snapshot);
      if (over) violations.push(`ledger ${kind} at the end: ${over}`);
      const { granted, settled, released, expired } = snapshot.totals;
      // An expired lease is a reservation its call abandoned: charged in full, but never in any record.
      if (expired > 0 || granted !== settled + released)
        violations.push(
          `ledger ${kind}: ${granted} granted, ${settled} settled, ${released} released, ${expired} expired`,
        );
    }
    // The tight scope must really run out, so the refusal path is exercised.
    if (CALLS >= 500 && !outcomes.BudgetExceeded) violations.push('no call ended BudgetExceeded');
    // Every request the fake received is one recorded attempt, and the fake never billed more than was charged.
    for (const model of SOAK_MODELS) {
      const seen = traffic.byModel[model.model]!;
      const recorded = Object.values(seen.recorded).reduce((sum, count) => sum + count, 0);
      if (seen.requests !== recorded)
        violations.push(
          `${model.model}: the fake received ${seen.requests} requests, the records show ${recorded}`,
        );
    }
    for (const entry of billing) {
      if (entry.known > entry.billed)
        violations.push(
          `${entry.model}: known charges ${entry.known} exceed the fake's bill ${entry.billed}`,
        );
      if (entry.billed > entry.known + entry.unknown)
        violations.push(
          `${entry.model}: the fake billed ${entry.billed}, more than all charges ${entry.known + entry.unknown}`,
        );
      // When every served fault left the record it should, every billed answer was charged at its real cost.
      if (!traffic.differing.includes(entry.model) && entry.known !== entry.billed)
        violations.push(
          `${entry.model}: known charges ${entry.known} differ from the fake's bill ${entry.billed}`,
        );
    }
    if (heap.ratio > HEAP_GROWTH_FACTOR)
      violations.push(
        `heap after GC grew ${heap.ratio}x (${heap.secondQuarterMb} → ${heap.lastQuarterMb} MB)`,
      );
    if (rss.ratio > RSS_GROWTH_FACTOR)
      violations.push(`RSS grew ${rss.ratio}x (${rss.secondQuarterMb} → ${rss.lastQuarterMb} MB)`);
    expect(violations).toEqual([]);
  },
  SOAK_TEST_TIMEOUT_MS,
);
