// What the scenarios of `npm run histories:record` share: their context, what each records, and the run id of a
// recorded workflow. Script side.
import type { Client } from '@temporalio/client';
import type { SwitchyardClient } from '../src/client/switchyard-client';
import type { FakeProvider } from '../src/fake-provider';
import type { HistoryFixture } from '../test/support/replay-fixtures';

/** One run of one workflow to record. */
export interface Recorded extends Omit<HistoryFixture, 'events'> {
  readonly runId: string;
}

export interface ScenarioContext {
  readonly switchyard: SwitchyardClient;
  readonly client: Client;
  readonly fake: FakeProvider;
}

export async function runIdOf(client: Client, workflowId: string): Promise<string> {
  return (await client.workflow.getHandle(workflowId).describe()).runId;
}
