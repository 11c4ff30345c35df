// What the Temporal UI shows of routed calls, read back from a real dev server: search attributes through
// visibility queries (success, fallback, failure), static and current details, attempt summaries, entities.
import { ROUTED_CALL_WORKFLOW_TYPE } from '../../src/workflows/definitions';
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import {
  callsServedByProviderQuery,
  callsWithFallbackQuery,
  failedCallsQuery,
} from '../../src/client/visibility-queries';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { ledgerWorkflowId } from '../../src/workflows/ledger/ledger-definitions';
import {
  costUsdAttribute,
  fallbacksAttribute,
  outcomeAttribute,
  routeAttribute,
  servedByAttribute,
} from '../../src/workflows/search-attributes';
import { expectRoutedCallError } from '../support/expect-failure';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());

/** Lists the calls of one task queue matching `query`, polling until `count` are visible (visibility lags). */
async function listCalls(taskQueue: string, query: string, count: number): Promise<WorkflowExecutionInfo[]> {
  let found: WorkflowExecutionInfo[] = [];
  for (let tries = 0; tries < 100; tries += 1) {
    found = [];
    const full = `TaskQueue = '${taskQueue}' AND WorkflowType = '${ROUTED_CALL_WORKFLOW_TYPE}' AND ${query}`;
    for await (const execution of harness.temporal.client.workflow.list({ query: full }))
      found.push(execution);
    if (found.length >= count) return found;
    await delay(200);
  }
  return found;
}

function ids(executions: readonly WorkflowExecutionInfo[]): string[] {
  return executions.map((execution) => execution.workflowId).sort();
}

test('search attributes carry the route, outcome, server, fallbacks and cost of success, fallback and failure', async () => {
  const scope = uniqueName('ui-scope');
  const { direct, fallback, failure, taskQueue } = await harness.withWorker(async (switchyard, queue) => {
    // 1. The first target answers.
    harness.fake.script('gpt-primary', { kind: 'answer', usage: { inputTokens: 20, outputTokens: 10 } });
    const first = await switchyard.generate({ route: 'support', request, budget: scope });
    // 2. The first target answers 429, the second answers.
    harness.fake.script('gpt-primary', { kind: 'error', error: 'rate_limited' });
    const second = await switchyard.generate({ route: 'support', request });
    // 3. Both targets fail.
    harness.fake.script('gpt-primary', { kind: 'error', error: 'server_error' });
    harness.fake.script('claude-primary', { kind: 'error', error: 'overloaded' });
    const third = await expectRoutedCallError(switchyard.generate({ route: 'support', request }));
    return { direct: first.record, fallback: second.record, failure: third, taskQueue: queue };
  });
  expect(failure.type).toBe('AllTargetsFailed');

  const all = await listCalls(taskQueue, `${routeAttribute.name} = 'support'`, 3);
  const byId = new Map(all.map((execution) => [execution.workflowId, execution.typedSearchAttributes]));
  const attributes = (workflowId: string) => {
    const typed = byId.get(workflowId)!;
    return {
      route: typed.get(routeAttribute),
      outcome: typed.get(outcomeAttribute),
      servedBy: typed.get(servedByAttribute),
      fallbacks: typed.get(fallbacksAttribute),
      costUsd: typed.get(costUsdAttribute),
    };
  };
  expect(attributes(direct.workflowId)).toEqual({
    route: 'support',
    outcome: 'succeeded',
    servedBy: 'openai/gpt-primary',
    fallbacks: 0,
    costUsd: direct.totalCostUsd,
  });
  expect(direct.totalCostUsd).toBeGreaterThan(0);
  expect(attributes(fallback.workflowId)).toEqual({
    route: 'support',
    outcome: 'succeeded',
    servedBy: 'anthropic/claude-primary',
    fallbacks: 1,
    costUsd: fallback.totalCostUsd,
  });
  expect(attributes(failure.workflowId)).toEqual({
    route: 'support',
    outcome: 'AllTargetsFailed',
    servedBy: undefined,
    fallbacks: 1,
    costUsd: failure.record!.totalCostUsd,
  });

  // The three queries of docs/observability.md find exactly the calls they describe.
  expect(ids(await listCalls(taskQueue, callsWithFallbackQuery('support'), 2))).toEqual(
    [fallback.workflowId, failure.workflowId].sort(),
  );
  expect(ids(await listCalls(taskQueue, callsServedByProviderQuery('anthropic'), 1))).toEqual([
    fallback.workflowId,
  ]);
  expect(ids(await listCalls(taskQueue, callsServedByProviderQuery('openai'), 1))).toEqual([
    direct.workflowId,
  ]);
  expect(ids(await listCalls(taskQueue, failedCallsQuery('support'), 1))).toEqual([failure.workflowId]);

  // The entities carry summaries too, so they can be found in the UI.
  const client = harness.temporal.client;
  const breaker = await client.workflow.getHandle(breakerWorkflowId('openai', 'gpt-primary')).describe();
  expect(await breaker.staticSummary()).toBe('breaker openai/gpt-primary');
  const ledger = await client.workflow.getHandle(ledgerWorkflowId(scope)).describe();
  expect(await ledger.staticSummary()).toBe(`budget ledger ${scope}`);
});

test('a call shows static details, current details while it runs, and a summary on each attempt', async () => {
  harness.fake.script('gpt-primary', { kind: 'error', error: 'rate_limited' });
  // The second attempt takes a while, so the call can be looked at while it runs.
  harness.fake.script('claude-primary', { kind: 'answer', text: 'late hello', delayMs: 3_000 });
  const client = harness.temporal.client;
  const { workflowId, currentDetails } = await harness.withWorker(async (switchyard) => {
    const handle = await switchyard.start({ route: 'support', request, budget: uniqueName('ui-details') });
    const workflow = client.workflow.getHandle(handle.workflowId);
    let details = '';
    for (let tries = 0; tries < 100 && !details.includes('rate_limited'); tries += 1) {
      const metadata = await workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      details = metadata.currentDetails ?? '';
      if (!details.includes('rate_limited')) await delay(100);
    }
    await handle.result();
    return { workflowId: handle.workflowId, currentDetails: details };
  });
  // While it ran: the attempt table, with the failed first attempt in it.
  expect(currentDetails).toContain('**Route** support');
  expect(currentDetails).toMatch(/\| 1 \| openai\/gpt-primary \| failed \| rate_limited \| 429 \|/);

  const description = await client.workflow.getHandle(workflowId).describe();
  expect(await description.staticSummary()).toMatch(/^route support · request [0-9a-f]{12}/);
  const details = await description.staticDetails();
  expect(details).toContain('**Route** support');
  expect(details).toContain('1. openai/gpt-primary (timeout 5 s)');
  expect(details).toContain('2. anthropic/claude-primary (timeout 5 s)');
  expect(details).toMatch(/\*\*Request\*\* digest [0-9a-f]{12} · 1 message · max 64 output tokens/);
  expect(details).toContain('**Limits** budget scope ui-details-');
  expect(details).not.toContain('Say hello');

  // One activity per attempt, each with its summary.
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const summaries = (history.events ?? []).flatMap((event) => {
    const summary = event.activityTaskScheduledEventAttributes
      ? event.userMetadata?.summary?.data
      : undefined;
    return summary ? [JSON.parse(Buffer.from(summary).toString('utf8')) as string] : [];
  });
  expect(summaries).toEqual(['#1 openai/gpt-primary', '#2 anthropic/claude-primary']);
});
