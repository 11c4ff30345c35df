// The scenario of `npm run histories:record` for a failover admitted from the view the call began with: the
// second target's breaker was seen healthy, so the failover's workflow task runs no local activity. Script side.
import { ROUTED_CALL_WORKFLOW_TYPE } from '../src/workflows/definitions';
import { runIdOf, type Recorded, type ScenarioContext } from './record-histories-scenario';

/** The models of this scenario, each with a breaker of its own. */
export const VIEW_PRIMARY_MODEL = 'view-primary';
export const VIEW_SECONDARY_MODEL = 'view-secondary';

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
const route = {
  targets: [
    { provider: 'openai', model: VIEW_PRIMARY_MODEL, timeoutMs: 5_000 },
    { provider: 'anthropic', model: VIEW_SECONDARY_MODEL, timeoutMs: 5_000 },
  ],
  breaker: { failureThreshold: 5, cooldownMs: 60_000 },
};

/** (m) A failover to a target the worker saw healthy a moment ago: admitted without asking its breaker. */
export async function failoverHealthyView({
  switchyard,
  client,
  fake,
}: ScenarioContext): Promise<Recorded[]> {
  fake.scriptAlways(VIEW_PRIMARY_MODEL, { kind: 'error', error: 'server_error' });
  fake.scriptAlways(VIEW_SECONDARY_MODEL, {
    kind: 'answer',
    text: 'hello',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  // The first call's failover asks the secondary's breaker; the worker keeps what it said for a second.
  await switchyard.generate({ route, request });
  const handle = await switchyard.start({ route, request });
  const { record } = await handle.result();
  const events = (await client.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? [];
  const markers = events.filter((event) => event.markerRecordedEventAttributes).length;
  if (record.servedBy?.model !== VIEW_SECONDARY_MODEL || record.fallbacks !== 1 || markers !== 1)
    throw new Error(`healthy-view scenario went another way: ${markers} markers, ${JSON.stringify(record)}`);
  return [
    {
      name: 'routed-call-v2-failover-healthy-view',
      scenario:
        'routed call: the primary fails (500), the secondary, seen healthy as the call began, is admitted without a local activity and serves',
      workflowType: ROUTED_CALL_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      runId: await runIdOf(client, handle.workflowId),
    },
  ];
}
