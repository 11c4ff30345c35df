// Per-file harness for breaker tests: dev server, fake provider, the breaker test bundle, workers, polling.
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import type { Config } from '../../src/config/config';
import type { ResolvedTarget } from '../../src/config/resolved-route';
import type { BreakerPolicy } from '../../src/config/route';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import type { breakerWorkflow } from '../../src/workflows/breaker/breaker-workflow';
import { breakerWorkflowId, stateQuery, type BreakerSnapshot } from '../../src/workflows/breaker/definitions';
import { sharedWorkflowBundle } from './shared-bundles';
import type { GatedCallInput, GatedCallResult, gatedCallWorkflow } from './breaker-test-workflows';
import { connectForTest, uniqueName, type TemporalTestContext } from './temporal';
import { TEST_API_KEYS, testConfig } from './test-config';

export const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

/** The breaker test workflows (the entity plus a gated attempt), bundled once per Jest run. */
export function bundleBreakerTestWorkflows(): Promise<WorkflowBundlePath> {
  return sharedWorkflowBundle('breaker-test');
}

export interface BreakerKey {
  readonly provider: string;
  readonly model: string;
}

/** A fresh `(openai, model)` key: the fake provider keys its scripts and counters by model name. */
export function uniqueKey(): BreakerKey {
  return { provider: 'openai', model: uniqueName('breaker-model') };
}

export function targetFor(key: BreakerKey, timeoutMs = 5_000): ResolvedTarget {
  return {
    provider: key.provider,
    providerKind: 'openai',
    model: key.model,
    timeoutMs,
    retries: 0,
    prices: { inputUsdPerMillion: 1, cachedInputUsdPerMillion: 1, outputUsdPerMillion: 1 },
  };
}

export function gatedInput(
  key: BreakerKey,
  policy: BreakerPolicy,
  extra: Partial<GatedCallInput> = {},
): GatedCallInput {
  return {
    route: { breaker: policy, heartbeatTimeoutMs: 2_000 },
    target: targetFor(key),
    request: { ...request },
    ...extra,
  };
}

export interface WorkerSetup {
  /** @default a fresh queue */
  readonly taskQueue?: string;
  /** Queue breaker entities are started on. @default `taskQueue` */
  readonly entityTaskQueue?: string;
  /** @default 1000 (the production default) */
  readonly hintTtlMs?: number;
}

export interface BreakerHarness {
  readonly temporal: TemporalTestContext;
  readonly fake: FakeProvider;
  readonly config: Config;
  readonly bundle: WorkflowBundlePath;
  /** Runs `body` while a worker polls `taskQueue`; returns what `body` returns. */
  withWorker<T>(setup: WorkerSetup, body: (taskQueue: string) => Promise<T>): Promise<T>;
  /** Runs one gated attempt on `taskQueue` and waits for it. */
  gatedCall(taskQueue: string, input: GatedCallInput, workflowId?: string): Promise<GatedCallResult>;
  startGatedCall(
    taskQueue: string,
    input: GatedCallInput,
    workflowId?: string,
  ): Promise<WorkflowHandle<typeof gatedCallWorkflow>>;
  breakerHandle(key: BreakerKey): WorkflowHandle<typeof breakerWorkflow>;
  /** The entity's snapshot, or undefined when no entity exists. */
  snapshot(key: BreakerKey): Promise<BreakerSnapshot | undefined>;
  /** Polls the entity until `accept` holds (signals are applied asynchronously). */
  waitForSnapshot(key: BreakerKey, accept: (snapshot: BreakerSnapshot) => boolean): Promise<BreakerSnapshot>;
  close(): Promise<void>;
}

export async function startBreakerHarness(): Promise<BreakerHarness> {
  const [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleBreakerTestWorkflows(),
  ]);
  const config = testConfig(fake);
  const client = temporal.client;

  const breakerHandle = (key: BreakerKey) =>
    client.workflow.getHandle<typeof breakerWorkflow>(breakerWorkflowId(key.provider, key.model));
  const snapshot = async (key: BreakerKey) => {
    try {
      return await breakerHandle(key).query(stateQuery);
    } catch (error) {
      if ((error as Error).name === 'WorkflowNotFoundError') return undefined;
      throw error;
    }
  };
  const startGatedCall = (taskQueue: string, input: GatedCallInput, workflowId = uniqueName('gated')) =>
    client.workflow.start<typeof gatedCallWorkflow>('gatedCallWorkflow', {
      taskQueue,
      workflowId,
      args: [input],
    });

  return {
    temporal,
    fake,
    config,
    bundle,
    async withWorker(setup, body) {
      const taskQueue = setup.taskQueue ?? uniqueName('breaker-test');
      const worker = await Worker.create({
        connection: temporal.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities: createActivities({
          config,
          client,
          taskQueue: setup.entityTaskQueue ?? taskQueue,
          providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
          breakerHintTtlMs: setup.hintTtlMs ?? 1_000,
        }),
      });
      return worker.runUntil(body(taskQueue));
    },
    startGatedCall,
    gatedCall: async (taskQueue, input, workflowId) =>
      (await startGatedCall(taskQueue, input, workflowId)).result(),
    breakerHandle,
    snapshot,
    async waitForSnapshot(key, accept) {
      let last: BreakerSnapshot | undefined;
      for (let tries = 0; tries < 300; tries += 1) {
        last = await snapshot(key);
        if (last && accept(last)) return last;
        await delay(50);
      }
      throw new Error(
        `breaker ${key.provider}/${key.model} never reached the expected state; last: ${JSON.stringify(last?.state)}`,
      );
    },
    close: async () => {
      await fake.close();
      await temporal.close();
    },
  };
}

/** Waits until `epochMs` has passed (cooldowns and leases), plus a small margin for clock reads. */
export async function waitUntil(epochMs: number): Promise<void> {
  const remaining = epochMs - Date.now() + 50;
  if (remaining > 0) await delay(remaining);
}

/** Polls `condition` every 50 ms until it holds (at most 15 s). */
export async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 300; tries += 1) {
    if (await condition()) return;
    await delay(50);
  }
  throw new Error('condition not met in time');
}
