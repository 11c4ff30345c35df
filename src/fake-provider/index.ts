// The fake provider's public API: start a scripted OpenAI (Chat Completions, Responses) + Anthropic HTTP server on
// 127.0.0.1.
import type { FakeProviderKind } from './provider-wire';
import { RandomFaults, type RandomFaultKind, type RandomFaultOptions } from './random-faults';
import { ScenarioBook, type FakeOutageOptions } from './scenario-book';
import { FakeHttpServer } from './server';
import {
  TrafficLog,
  type FakeBilledUsage,
  type FakeModelCounters,
  type FakeRequestRecord,
} from './traffic-log';
import { FakeScenarioSchema, type FakeScenario } from './scenario';

export { ANY_MODEL, type FakeOutageOptions } from './scenario-book';
export {
  DEFAULT_RANDOM_FAULT_WEIGHTS,
  RandomFaultKind,
  randomFaultSequence,
  type RandomFaultOptions,
  type RandomFaultWeights,
} from './random-faults';
export { SCENARIO_HEADER } from './server';
export {
  FakeErrorName,
  FakeScenarioSchema,
  FakeStreamErrorEvent,
  type FakeScenario,
  type FakeScenarioKind,
} from './scenario';
export {
  fingerprintApiKey,
  type FakeBilledUsage,
  type FakeModelCounters,
  type FakeRequestRecord,
} from './traffic-log';
export type { FakeProviderKind } from './provider-wire';

export interface FakeProviderOptions {
  /** TCP port to listen on. @default 0 (any free port) */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Fixed delay before every response's status line, in milliseconds (benchmarks). @default 0 */
  readonly latencyMs?: number;
  /** When set, a request with any other key gets the provider's 401. @default undefined (any key) */
  readonly requiredApiKey?: string;
}

export interface FakeScriptOptions {
  /** How many requests each given scenario serves before the next one. @default 1 */
  readonly times?: number;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Base URL for the `openai` SDK (`<url>/v1`), Chat Completions and Responses alike. */
  readonly openaiBaseURL: string;
  /** Base URL for the `@anthropic-ai/sdk` client (`<url>`; the SDK adds `/v1/messages`). */
  readonly anthropicBaseURL: string;
  readonly port: number;
  /**
   * Queues scenarios for `model` (or `*` for any model): each serves `times` requests, in order; then
   * the standing scenario or the default echo answer applies. `script(m, [fail, fail])` = fail twice,
   * then succeed.
   */
  script(model: string, scenarios: FakeScenario | readonly FakeScenario[], options?: FakeScriptOptions): void;
  /** Serves `scenario` to every request for `model` that no queue or outage claims, until `reset()`. */
  scriptAlways(model: string, scenario: FakeScenario): void;
  /** Fails every request for `model` during a window (default: from now until `recover(model)`). */
  outage(model: string, options?: FakeOutageOptions): void;
  /** Ends the outage of `model`. */
  recover(model: string): void;
  /**
   * Serves seeded random faults (weights as data) to every request that no outage, queue or standing
   * scenario claims, until `reset()`: the same seed gives the same kinds in the same request order per
   * (provider, model). Replaces any earlier random faults.
   */
  randomFaults(options: RandomFaultOptions): void;
  /**
   * The random fault kinds served so far to `provider/model` (provider: `openai`, `openai-responses` or
   * `anthropic`: each wire draws its own stream), oldest first.
   */
  randomFaultsServed(provider: FakeProviderKind, model: string): readonly RandomFaultKind[];
  /** Forgets all scripts, outages, the request log, counters and billed usage. */
  reset(): void;
  /** Every request received since start or `reset()`, oldest first. */
  readonly requests: readonly FakeRequestRecord[];
  requestsFor(model: string): FakeRequestRecord[];
  counters(model: string): FakeModelCounters;
  /**
   * When the client closed the request numbered `sequence` before its answer was complete (`Date.now()`
   * milliseconds, this process's clock); undefined while it is open or once it was answered in full.
   */
  abandonedAt(sequence: number): number | undefined;
  /** Usage reported on complete answers for `model`: what the provider would bill. */
  billed(model: string): FakeBilledUsage;
  /** Stops the server, destroying open connections (hung requests included). */
  close(): Promise<void>;
}

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const book = new ScenarioBook();
  let randomFaults: RandomFaults | undefined;
  const log = new TrafficLog();
  const host = options.host ?? '127.0.0.1';
  const server = new FakeHttpServer(
    {
      host,
      port: options.port ?? 0,
      latencyMs: options.latencyMs ?? 0,
      requiredApiKey: options.requiredApiKey,
    },
    book,
    log,
  );
  const port = await server.listen();
  const url = `http://${host}:${port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    port,
    script(model, scenarios, scriptOptions = {}) {
      const list = Array.isArray(scenarios) ? scenarios : [scenarios as FakeScenario];
      const times = scriptOptions.times ?? 1;
      // Validate up front so a typo fails the test that wrote it, not a later request.
      const valid = list.map((scenario) => FakeScenarioSchema.parse(scenario));
      book.enqueue(
        model,
        valid.flatMap((scenario) => Array.from({ length: times }, () => scenario)),
      );
    },
    scriptAlways(model, scenario) {
      book.setStanding(model, FakeScenarioSchema.parse(scenario));
    },
    outage(model, outageOptions = {}) {
      if (outageOptions.scenario) FakeScenarioSchema.parse(outageOptions.scenario);
      book.startOutage(model, outageOptions, Date.now());
    },
    recover(model) {
      book.endOutage(model);
    },
    randomFaults(faultOptions) {
      randomFaults = new RandomFaults(faultOptions);
      book.setRandomFaults(randomFaults);
    },
    randomFaultsServed: (provider, model) => randomFaults?.drawn(provider, model) ?? [],
    reset() {
      book.clear();
      log.clear();
      randomFaults = undefined;
    },
    get requests() {
      return log.requests;
    },
    requestsFor: (model) => log.requests.filter((request) => request.model === model),
    counters: (model) => log.counters(model),
    abandonedAt: (sequence) => log.abandonedAtOf(sequence),
    billed: (model) => log.billed(model),
    close: () => server.close(),
  };
}
