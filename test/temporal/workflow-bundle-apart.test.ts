// A worker started without a prebuilt bundle builds it in a process of its own, so the bundler's memory never
// stays in the worker's. The bundle it gets back is a working one.
import { Worker } from '@temporalio/worker';
import { bundleSwitchyardWorkflowsApart } from '../../src/workflow-bundle';
import { loadFixtureHistory, readFixtureIndex } from '../support/replay-fixtures';

test('the bundle built apart replays a recorded routed call', async () => {
  const { code, builtByPid } = await bundleSwitchyardWorkflowsApart();
  expect(builtByPid).not.toBe(process.pid);
  const fixture = readFixtureIndex().histories.find(
    (entry) => entry.name === 'routed-call-v2-failover-budget',
  )!;
  await expect(
    Worker.runReplayHistory(
      { workflowBundle: { code }, replayName: 'bundle-apart' },
      loadFixtureHistory(fixture),
      fixture.workflowId,
    ),
  ).resolves.toBeUndefined();
}, 120_000);
