// Per-file harness for gateway tests: dev server, fake provider, a worker, gateways, keys and the real SDK clients.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { WorkerOptions, WorkflowBundlePath } from '@temporalio/worker';
import { createProviderRegistry } from '../../src/activities/provider-registry';
import { SwitchyardClient } from '../../src/client/switchyard-client';
import type { Config } from '../../src/config/config';
import { parseConfig } from '../../src/config/load-config';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/gateway/gateway-server';
import type { StoredKey } from '../../src/gateway/gateway-key';
import { KeyStore } from '../../src/gateway/key-store';
import { createSwitchyardWorker } from '../../src/worker';
import { breakerWorkflowId } from '../../src/workflows/breaker/definitions';
import { bundleSwitchyardWorkflows, connectForTest, uniqueName, type TemporalTestContext } from './temporal';
import { fakeProviders, TEST_API_KEYS } from './test-config';

/**
 * Routes of the gateway tests. `support` starts on an OpenAI-format target and `reverse` on an Anthropic one,
 * so each surface is served by both provider kinds; `fragile` opens its breaker after one failure and then
 * fails at once.
 */
export function gatewayConfig(
  fake: Pick<FakeProvider, 'openaiBaseURL' | 'anthropicBaseURL'>,
  /** More routes beside these, as config text would give them. @default none */
  extraRoutes: Record<string, unknown> = {},
  /** More providers beside the fake's `openai` and `anthropic`, as config text would give them. @default none */
  extraProviders: Record<string, unknown> = {},
): Config {
  return parseConfig({
    providers: {
      ...fakeProviders(fake, {
        openai: ['gpt-primary', 'gpt-secondary', 'gpt-fragile'],
        anthropic: ['claude-primary', 'claude-secondary'],
      }),
      ...extraProviders,
    },
    routes: {
      support: {
        targets: [
          { provider: 'openai', model: 'gpt-primary', timeoutMs: 10_000 },
          { provider: 'anthropic', model: 'claude-primary', timeoutMs: 10_000 },
        ],
        heartbeatTimeoutMs: 2_000,
      },
      reverse: {
        targets: [
          { provider: 'anthropic', model: 'claude-secondary', timeoutMs: 10_000 },
          { provider: 'openai', model: 'gpt-secondary', timeoutMs: 10_000 },
        ],
      },
      fragile: {
        targets: [{ provider: 'openai', model: 'gpt-fragile', timeoutMs: 5_000 }],
        breaker: { failureThreshold: 1, cooldownMs: 60_000 },
        whenAllOpen: 'fail',
      },
      ...extraRoutes,
    },
    defaultRoute: 'support',
  });
}

export interface GatewayContext {
  readonly gateway: Gateway;
  readonly switchyard: SwitchyardClient;
  readonly taskQueue: string;
  /** A key for every route, charging no budget. */
  readonly key: string;
  readonly openai: OpenAI;
  readonly anthropic: Anthropic;
  /** Makes another key with the given scope. */
  makeKey(scope: Pick<StoredKey, 'routes' | 'budget'>): string;
}

export interface GatewayHarness {
  readonly temporal: TemporalTestContext;
  readonly fake: FakeProvider;
  readonly config: Config;
  readonly keys: KeyStore;
  readonly bundle: WorkflowBundlePath;
  /** A worker on a fresh task queue, a gateway in front of it, and SDK clients pointed at the gateway. */
  withGateway<T>(
    body: (context: GatewayContext) => Promise<T>,
    options?: Partial<GatewayOptions>,
    /** The worker's Temporal options beside Switchyard's. @default Switchyard's alone */
    workerOptions?: Partial<WorkerOptions>,
  ): Promise<T>;
  close(): Promise<void>;
}

/** SDK clients as a user would make them, pointed at a gateway; no SDK retries, so each request is one call. */
export function sdkClients(gatewayUrl: string, key: string): { openai: OpenAI; anthropic: Anthropic } {
  return {
    openai: new OpenAI({ apiKey: key, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: gatewayUrl, maxRetries: 0 }),
  };
}

/** Breakers outlive tests on one server; each test starts from fresh ones (see harness.ts). */
export async function terminateBreakers(temporal: TemporalTestContext, config: Config): Promise<void> {
  const ids = Object.entries(config.providers).flatMap(([provider, { models }]) =>
    Object.keys(models).map((model) => breakerWorkflowId(provider, model)),
  );
  await Promise.all(
    ids.map((id) =>
      temporal.client.workflow
        .getHandle(id)
        .terminate('test isolation')
        .catch(() => undefined),
    ),
  );
}

export async function startGatewayHarness(
  options: {
    /** Routes a test file needs beside {@link gatewayConfig}'s. @default none */
    readonly extraRoutes?: Record<string, unknown>;
    /** Providers those routes need beside {@link gatewayConfig}'s, given the fake they call. @default none */
    readonly extraProviders?: (fake: FakeProvider) => Record<string, unknown>;
  } = {},
): Promise<GatewayHarness> {
  const [temporal, fake, bundle] = await Promise.all([
    connectForTest(),
    startFakeProvider(),
    bundleSwitchyardWorkflows(),
  ]);
  const config = gatewayConfig(fake, options.extraRoutes, options.extraProviders?.(fake));
  const keysDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-keys-'));
  const keys = new KeyStore({ file: path.join(keysDirectory, 'keys.json'), recheckMs: 0 });
  return {
    temporal,
    fake,
    config,
    keys,
    bundle,
    withGateway: async (body, options = {}, workerOptions = {}) => {
      await terminateBreakers(temporal, config);
      const taskQueue = uniqueName('switchyard-gateway');
      const worker = await createSwitchyardWorker({
        config,
        connection: temporal.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        providers: createProviderRegistry(config, { ...TEST_API_KEYS }),
        workerOptions,
      });
      const switchyard = new SwitchyardClient({ client: temporal.client, taskQueue, config });
      const gateway = await startGateway({ switchyard, config, keys, port: 0, ...options });
      const makeKey = (scope: Pick<StoredKey, 'routes' | 'budget'>) => keys.create(scope).key;
      const key = makeKey({ routes: ['*'] });
      try {
        return await worker.runUntil(
          body({ gateway, switchyard, taskQueue, key, makeKey, ...sdkClients(gateway.url, key) }),
        );
      } finally {
        await gateway.close();
      }
    },
    close: async () => {
      await fake.close();
      await temporal.close();
      rmSync(keysDirectory, { recursive: true, force: true });
    },
  };
}
