// The determinism guard: every recorded history in test/fixtures/histories replays against today's workflow code,
// and a change made without patched() is caught. Re-record with `npm run histories:record`.
import { ROUTED_CALL_WORKFLOW_TYPES } from '../../src/workflows/definitions';
import { readdirSync, readFileSync } from 'node:fs';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type ReplayResult,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import {
  FIXTURE_DIRECTORY,
  FIXTURE_INDEX_FILE,
  fixturePath,
  loadFixtureHistory,
  readFixtureIndex,
  secretsIn,
  type HistoryFixture,
} from '../support/replay-fixtures';
import { bundleSwitchyardWorkflows } from '../support/temporal';
import { TEST_API_KEYS } from '../support/test-config';

const index = readFixtureIndex();
const fixtures = index.histories;

function replayInput(fixture: HistoryFixture): HistoryAndWorkflowId {
  // The real workflow id: workflow code reads it (breaker callers, reservation ids), so replay must see it too.
  return { workflowId: fixture.workflowId, history: loadFixtureHistory(fixture) };
}

/** Replays `chosen` one after another on one replay worker; results in the same order. */
async function replay(
  bundle: WorkflowBundleOption,
  chosen: readonly HistoryFixture[],
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: bundle, replayName: 'switchyard-replay-guard' },
    chosen.map(replayInput),
  )) {
    results.push(result);
  }
  return results;
}

function bundleTestWorkflows(file: string): Promise<WorkflowBundleOption> {
  return bundleWorkflowCode({ workflowsPath: require.resolve(file), logger: new DefaultLogger('WARN') });
}

const resultsByName = new Map<string, ReplayResult>();

beforeAll(async () => {
  // Errors only, core's too: the guard's own test makes the replay worker warn of the nondeterminism it expects.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const bundle = await bundleSwitchyardWorkflows();
  const results = await replay(bundle, fixtures);
  results.forEach((result, position) => resultsByName.set(fixtures[position]!.name, result));
});

afterAll(() => {
  const clean = fixtures.filter((fixture) => {
    const result = resultsByName.get(fixture.name);
    return result !== undefined && result.error === undefined;
  });
  const failed = fixtures.length - clean.length;
  console.log(
    `[reliability] replay: ${clean.length} histories replayed (${clean.map((fixture) => fixture.name).join(', ')})` +
      (failed > 0 ? `; ${failed} failed` : ''),
  );
});

test('the fixture index lists every recorded history, and each is the workflow type it claims', () => {
  const files = readdirSync(FIXTURE_DIRECTORY)
    .filter((file) => file.endsWith('.json') && file !== FIXTURE_INDEX_FILE)
    .map((file) => file.replace(/\.json$/, ''))
    .sort();
  expect(fixtures.map((fixture) => fixture.name).sort()).toEqual(files);
  // Every workflow type of the bundle has at least one history.
  expect(new Set(fixtures.map((fixture) => fixture.workflowType))).toEqual(
    new Set([
      ...ROUTED_CALL_WORKFLOW_TYPES,
      'breakerWorkflow',
      'ledgerWorkflow',
      'scheduledGenerationWorkflow',
    ]),
  );
  for (const fixture of fixtures) {
    const history = loadFixtureHistory(fixture);
    expect(history.events).toHaveLength(fixture.events);
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(
      fixture.workflowType,
    );
  }
});

test('no recorded history holds an API key, in its text or inside a payload', () => {
  for (const fixture of fixtures) {
    const text = readFileSync(fixturePath(fixture.name), 'utf8');
    expect({ fixture: fixture.name, keys: secretsIn(text, Object.values(TEST_API_KEYS)) }).toEqual({
      fixture: fixture.name,
      keys: [],
    });
  }
});

describe.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s', (_name, fixture) => {
  test(`replays against today's workflow code: ${fixture.scenario}`, () => {
    const result = resultsByName.get(fixture.name);
    expect(result).toBeDefined();
    // The error's message names the command that no longer matches the history.
    expect(result?.error).toBeUndefined();
  });
});

describe('the guard can fail', () => {
  const routedCalls = fixtures.filter((fixture) => ROUTED_CALL_WORKFLOW_TYPES.includes(fixture.workflowType));

  test('a routed-call change without patched() is a DeterminismViolationError on every recorded routed call', async () => {
    expect(routedCalls.length).toBeGreaterThan(0);
    const bundle = await bundleTestWorkflows('../support/replay-unpatched-change-workflows');
    const results = await replay(bundle, routedCalls);
    expect(results).toHaveLength(routedCalls.length);
    for (const result of results) expect(result.error).toBeInstanceOf(DeterminismViolationError);
  });

  test('ledger code that does not mark a run holding allowances cannot replay one: older workers leave it alone', async () => {
    const ledgers = fixtures.filter((fixture) => fixture.workflowType === 'ledgerWorkflow');
    const withAllowances = ledgers.filter((fixture) => fixture.name === 'ledger-allowances-continue-as-new');
    expect(withAllowances).toHaveLength(1);
    const bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../support/replay-ledger-before-allowances-workflows'),
      logger: new DefaultLogger('WARN'),
      webpackConfigHook: (config) => ({
        ...config,
        resolve: {
          ...config.resolve,
          alias: {
            ...(config.resolve?.alias as Record<string, string>),
            '@temporalio/workflow$': require.resolve('../support/workflow-without-memo'),
          },
        },
      }),
    });
    const results = await replay(bundle, ledgers);
    expect(results.map((result) => result.error instanceof DeterminismViolationError)).toEqual(
      ledgers.map((fixture) => withAllowances.includes(fixture)),
    );
  });

  test('the same change behind patched() replays every recorded routed call', async () => {
    const bundle = await bundleTestWorkflows('../support/replay-patched-change-workflows');
    const results = await replay(bundle, routedCalls);
    expect(results.map((result) => result.error)).toEqual(routedCalls.map(() => undefined));
  });
});
