// Messages between the bench orchestrator and its worker process (Node IPC). Bench side.
import type { LatencyMode } from './bench-config';
import type { LitellmEndpoint } from './litellm';

/**
 * What one sample calls: the SDK directly, a one-activity workflow, a routed call (breaker on, no budget scope),
 * the same call through the client's `answer` (done when the answer is, ahead of the call's record), a routed call
 * with a budget scope too (breaker and ledger), or the peer: the SDK through LiteLLM's proxy.
 */
export type Variant = 'direct' | 'bare' | 'routed' | 'answered' | 'budgeted' | 'litellm';

export interface CallSpec {
  readonly variant: Variant;
  readonly mode: LatencyMode;
  /** Route of a routed call. @default the mode's healthy route */
  readonly route?: string;
  /**
   * Task queue of a routed call, when another process's worker serves it (no eager start then).
   * @default the driver's own worker
   */
  readonly taskQueue?: string;
  /** Budget scope of a `budgeted` call. @default the latency bench's scope */
  readonly budget?: string;
  /** Where a `litellm` call goes: the proxy's base URL and key (required for that variant). */
  readonly peer?: LitellmEndpoint;
}

/** What a worker process runs: the driver with its own workers, or a plain Switchyard worker. */
export type WorkerRole = 'driver' | 'worker';

/** Worker-side settings the tuning matrix varies. */
export interface WorkerSettings {
  /** Ask the server to hand the first workflow task straight back to this process (`requestEagerStart`). */
  readonly eagerStart: boolean;
  /** Options given to the routed-call worker and the bare worker (cache size, pollers, slots). */
  readonly workerOptions: Readonly<Record<string, number | boolean>>;
  /** Options given to the entity worker (breakers and ledgers) of the plain worker. @default none */
  readonly entityWorkerOptions?: Readonly<Record<string, number | boolean>>;
}

export type Command =
  | {
      readonly kind: 'sequential';
      readonly call: CallSpec;
      readonly count: number;
      /** Stop early after this long, in milliseconds. @default 60000 */
      readonly maxDurationMs?: number;
    }
  | {
      readonly kind: 'closedLoop';
      readonly call: CallSpec;
      readonly concurrency: number;
      readonly durationMs: number;
    }
  | {
      readonly kind: 'ledger';
      readonly scope: string;
      readonly concurrency: number;
      readonly amountNanoUsd: number;
      readonly maxDurationMs: number;
    }
  | { readonly kind: 'activityTimings'; readonly reset: boolean }
  | {
      readonly kind: 'memory';
      /** Also each workflow thread's heap, through the inspector (forces a full collection in each). */
      readonly threadHeaps?: boolean;
    }
  | { readonly kind: 'stop' };

export interface SequentialResult {
  readonly latenciesMs: number[];
  /** Workflow id of each sample (empty for direct calls). */
  readonly workflowIds: string[];
  readonly errors: string[];
  readonly eagerStarts: number;
}

export interface ClosedLoopResult {
  readonly latenciesMs: number[];
  readonly errors: string[];
  /** Error message → count, for calls that failed. */
  readonly errorKinds: Record<string, number>;
  readonly elapsedMs: number;
  readonly completed: number;
  /** Calls still running when the loop gave up waiting for them. */
  readonly unfinished: number;
}

export interface LedgerResult {
  /** Latency of every reserve that was answered (granted or refused), in milliseconds. */
  readonly reserveLatenciesMs: number[];
  readonly granted: number;
  readonly refused: number;
  readonly errors: string[];
  /** From the first reserve to the last grant, in milliseconds. */
  readonly grantWindowMs: number;
  readonly timedOut: boolean;
}

/** Per activity type: execution durations in milliseconds, local and remote activities alike. */
export type ActivityTimings = Record<string, number[]>;

/** A worker thread's V8 heap; `liveBytes` is what a forced full collection leaves. */
export interface ThreadHeap {
  readonly totalBytes: number;
  readonly usedBytes: number;
  readonly liveBytes: number;
}

/** The worker process's `process.memoryUsage()`: its main thread's V8 heap, not its workflow threads'. */
export interface MemoryResult {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  /** Memory of C++ objects bound to the main thread's JavaScript objects, `arrayBuffersBytes` included. */
  readonly externalBytes: number;
  readonly arrayBuffersBytes: number;
  /** When asked for: each worker thread's heap (the SDK's workflow threads, one per SDK `Worker`, in order). */
  readonly threadHeaps?: readonly ThreadHeap[];
}

export type Reply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string };

export interface Request {
  readonly id: number;
  readonly command: Command;
}

/** Environment variables the orchestrator sets for the worker process. */
export const WORKER_ENVIRONMENT = {
  address: 'BENCH_TEMPORAL_ADDRESS',
  fakeUrls: 'BENCH_FAKE_URLS',
  settings: 'BENCH_WORKER_SETTINGS',
  taskQueue: 'BENCH_TASK_QUEUE',
  /** JSON `{ switchyard, bare }`: paths of the prebuilt workflow bundles. */
  bundles: 'BENCH_WORKFLOW_BUNDLES',
  /** `driver` (worker, bare worker and load driver) or `worker` (a Switchyard worker and nothing else). */
  role: 'BENCH_WORKER_ROLE',
} as const;
