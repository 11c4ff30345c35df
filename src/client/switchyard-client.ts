// The application API: start, wait for, plan and inspect routed calls. Node side.
import { randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionStatusName,
  type WorkflowHandle,
} from '@temporalio/client';
import { TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import type { Config } from '../config/config';
import { loadConfig } from '../config/load-config';
import { configWithRuntimeRoutes } from '../config/runtime-routes';
import type { RoutedCallInputValue } from '../config/routed-call-input';
import type { CallPlan } from '../routing/call-plan';
import type { AttemptRecord, RoutedCallResult, RoutingRecord } from '../routing/routing-record';
import {
  attemptsQuery,
  CANCELLED_RECORD_MEMO,
  DEFAULT_TASK_QUEUE,
  entityTaskQueue,
  ROUTED_CALL_WORKFLOW_TYPE,
  ROUTED_CALL_WORKFLOW_TYPES,
  routedCallWorkflowId,
} from '../workflows/definitions';
import type { routedCallV2Workflow } from '../workflows/routed-call/routed-call-workflow';
import { routedCallStartAttributes, startRouteName } from '../workflows/search-attributes';
import { Breakers } from './breakers';
import { Ledgers } from './ledgers';
import { Routes, type GatewayKeyRoutes } from './routes';
import { Schedules } from './schedules';
import { checkCallAgainstConfig, planRoutedCall, validateCallInput } from './call-input';
import { IdempotencyConflictError, InvalidRequestError, RoutedCallError, toRoutedCallError } from './errors';
import { callInputDigest, INPUT_DIGEST_MEMO } from './input-digest';
import { routedCallStaticDetails } from './call-details';
import { callInputSizeRules, checkCallInputSize } from './call-input-size';
import { staticSummary } from './request-digest';
import { answerSoon, type RoutedCallAnswer } from './early-answer';

// Still exported from here; they live apart so that validating and planning a call load no Temporal client.
export { validateCallInput, planRoutedCall };

export interface SwitchyardClientOptions {
  /**
   * A connected Temporal client (see `connectClient`). Its data converter must match the workers': with
   * payload encryption or the payload store on, build it with `connectClient` (which reads SWITCHYARD_CODEC_KEY
   * and SWITCHYARD_PAYLOAD_STORE_DIR) or pass `dataConverterFromEnvironment()` as the `Client`'s `dataConverter`.
   * A client without a payload store refuses a call input too large for Temporal before starting it.
   */
  readonly client: Client;
  /** @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /**
   * Config used by `plan`, and by `start` to refuse an unknown route or a missing required budget before
   * starting. @default none for `start` (the workers check); `plan` loads `SWITCHYARD_CONFIG` on first use
   */
  readonly config?: Config;
  /**
   * The gateway's keys, so that `routes.delete` refuses to delete a route a key allows (the client cannot read the
   * gateway's key file itself). @default none checked
   */
  readonly gatewayKeys?: () => readonly GatewayKeyRoutes[] | Promise<readonly GatewayKeyRoutes[]>;
  /**
   * Eager start: the server hands each call's first task to a worker of this process (`client` built on its
   * `NativeConnection`), and with eager activity dispatch its first attempt runs here too (see `answer`). @default false
   */
  readonly eagerStart?: boolean;
}

export interface CallOptions {
  /**
   * Makes the call idempotent: it becomes the workflow id, so the same key never runs twice and a repeat
   * returns the first call's result (or error) without calling any provider again. A repeat with a different
   * input is refused with `IdempotencyConflictError` (the first call keeps a digest of its input in its memo).
   */
  readonly idempotencyKey?: string;
}

export interface RoutedCallHandle {
  readonly workflowId: string;
  /** Waits for the answer; rejects with `RoutedCallError` carrying the routing record. */
  result(): Promise<RoutedCallResult>;
  /** The attempts that have ended so far. */
  attempts(): Promise<AttemptRecord[]>;
  /** Cancels the call: no failover follows, and it ends as `Cancelled`. */
  cancel(): Promise<void>;
}

/** What `inspect` found out about a routed call, whatever state it is in. */
export interface RoutedCallInspection {
  readonly workflowId: string;
  /** Temporal's execution status: `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, `TIMED_OUT`, … */
  readonly status: WorkflowExecutionStatusName;
  /** The answer, once the call has completed. */
  readonly answer?: RoutedCallResult['answer'];
  /** The routing record, once the call has ended (absent while it runs, and after a terminate or timeout). */
  readonly record?: RoutingRecord;
  /** The attempts that have ended so far; the record's attempts once the call has ended. */
  readonly attempts: readonly AttemptRecord[];
  /** Why the call ended without an answer: a `RoutedCallFailureType`, or `Terminated` / `TimedOut`. */
  readonly error?: { readonly type: string; readonly message: string };
}

export class SwitchyardClient {
  readonly taskQueue: string;
  /** The circuit breakers: list, read and reset them. */
  readonly breakers: Breakers;
  /** The budget ledgers: read a scope's spend, set its limit. */
  readonly ledgers: Ledgers;
  /** Scheduled generations: create, list, describe, pause, trigger, update and delete schedules; read their results. */
  readonly schedules: Schedules;
  /** Routes changed at runtime: list, show (with the audit trail), set and delete them. */
  readonly routes: Routes;
  private config: Config | undefined;

  constructor(private readonly options: SwitchyardClientOptions) {
    this.taskQueue = options.taskQueue ?? process.env.SWITCHYARD_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    this.config = options.config;
    this.breakers = new Breakers(options.client);
    this.ledgers = new Ledgers({ client: options.client, taskQueue: entityTaskQueue(this.taskQueue) });
    this.schedules = new Schedules({
      client: options.client,
      taskQueue: this.taskQueue,
      ...(options.config ? { config: options.config } : {}),
      runtimeRoutes: () => this.routes.recentRuntimeRoutes(),
    });
    this.routes = new Routes({
      client: options.client,
      taskQueue: this.taskQueue,
      ...(options.config ? { config: options.config } : {}),
      schedules: this.schedules,
      ...(options.gatewayKeys ? { gatewayKeys: options.gatewayKeys } : {}),
    });
  }

  get temporal(): Client {
    return this.options.client;
  }

  /**
   * Starts a routed call and returns a handle to it. Rejects, before anything is sent, with `InvalidRequestError`
   * for a bad input and `PayloadTooLargeError` for one too large for Temporal (without a payload store). With an
   * idempotency key whose call exists, running or ended, the handle is to that call; if that call's input
   * differs, `IdempotencyConflictError` is thrown instead.
   */
  async start(input: RoutedCallInputValue, options: CallOptions = {}): Promise<RoutedCallHandle> {
    const validated = validateCallInput(input);
    if (this.config) {
      // A route name the config lacks may have been set at runtime: look it up among the runtime routes too.
      const runtimeOnly =
        typeof validated.route === 'string' && !Object.hasOwn(this.config.routes, validated.route);
      const config = runtimeOnly
        ? configWithRuntimeRoutes(this.config, await this.routes.recentRuntimeRoutes())
        : this.config;
      checkCallAgainstConfig(config, validated);
    }
    checkCallInputSize(
      validated,
      callInputSizeRules(this.temporal.options.loadedDataConverter.payloadCodecs),
    );
    const workflowId = options.idempotencyKey
      ? routedCallWorkflowId(options.idempotencyKey)
      : routedCallWorkflowId(randomUUID());
    const routeLabel =
      typeof validated.route === 'string' ? validated.route : validated.route ? 'inline' : 'default';
    const digest = callInputDigest(validated);
    try {
      await this.temporal.workflow.start<typeof routedCallV2Workflow>(ROUTED_CALL_WORKFLOW_TYPE, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [validated],
        // A running call with this key is joined; a finished one is never run again (its result is read).
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: routedCallStartAttributes(
          startRouteName(validated.route, this.config?.defaultRoute),
        ),
        staticSummary: staticSummary(routeLabel, validated.request),
        staticDetails: routedCallStaticDetails(validated, this.config),
        memo: { [INPUT_DIGEST_MEMO]: digest },
        ...(this.options.eagerStart ? { requestEagerStart: true } : {}),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    if (options.idempotencyKey) await this.refuseOtherInput(options.idempotencyKey, workflowId, digest);
    return this.handle(workflowId);
  }

  /**
   * The start may have joined a call that already had the key (USE_EXISTING while it runs, REJECT_DUPLICATE
   * once it ended) and the server does not say which: compare the digest its memo holds with this input's. A
   * call started before digests were kept has none and is joined as before.
   */
  private async refuseOtherInput(idempotencyKey: string, workflowId: string, digest: string): Promise<void> {
    const { memo } = await this.temporal.workflow.getHandle(workflowId).describe();
    const existing = memo?.[INPUT_DIGEST_MEMO];
    if (typeof existing === 'string' && existing !== digest) {
      throw new IdempotencyConflictError(
        `idempotency key "${idempotencyKey}" was already used for a call with a different input (workflow ${workflowId}); use a new key for a new call`,
        idempotencyKey,
        workflowId,
      );
    }
  }

  /** Starts a routed call and waits for its answer. */
  async generate(input: RoutedCallInputValue, options: CallOptions = {}): Promise<RoutedCallResult> {
    return (await this.start(input, options)).result();
  }

  /**
   * Starts a routed call and resolves with its answer as soon as an attempt has it: ahead of the call's record when
   * a worker of this process ran the attempt (see `eagerStart`), else with the result. Rejects as `generate`.
   */
  answer(input: RoutedCallInputValue, options: CallOptions = {}): Promise<RoutedCallAnswer> {
    return answerSoon((withRelay) => this.start(withRelay, options), input);
  }

  /** A handle to an existing routed call. */
  handle(workflowId: string): RoutedCallHandle {
    const handle: WorkflowHandle<typeof routedCallV2Workflow> = this.temporal.workflow.getHandle(workflowId);
    return {
      workflowId,
      result: async () => {
        try {
          return await handle.result();
        } catch (error) {
          const converted = toRoutedCallError(error, workflowId);
          if (converted instanceof RoutedCallError && converted.type === 'Cancelled' && !converted.record) {
            const { memo } = await handle.describe();
            const record = memo?.[CANCELLED_RECORD_MEMO] as RoutingRecord | undefined;
            throw new RoutedCallError(converted.message, converted.type, workflowId, record);
          }
          throw converted;
        }
      },
      attempts: () => handle.query(attemptsQuery),
      cancel: () => handle.cancel().then(() => undefined),
    };
  }

  /** What a call would do now — attempts, timeouts, cost bounds — without starting it or calling a provider. */
  plan(input: RoutedCallInputValue): CallPlan {
    this.config ??= loadConfig();
    return planRoutedCall(this.config, input);
  }

  /**
   * The state of a routed call: its answer and record once it has ended, or the attempts so far while it runs.
   * Rejects with `WorkflowNotFoundError` for an unknown id, and `InvalidRequestError` for a workflow that is
   * not a routed call.
   */
  async inspect(workflowId: string): Promise<RoutedCallInspection> {
    const description = await this.temporal.workflow.getHandle(workflowId).describe();
    if (!ROUTED_CALL_WORKFLOW_TYPES.includes(description.type)) {
      throw new InvalidRequestError(
        `workflow "${workflowId}" is a ${description.type}, not a routed call`,
        'workflowId',
      );
    }
    const status = description.status.name;
    const handle = this.handle(workflowId);
    // A running call has no record yet; its query answers from the worker's cached state.
    if (status === 'RUNNING') return { workflowId, status, attempts: await handle.attempts() };
    try {
      const { answer, record } = await handle.result();
      return { workflowId, status, answer, record, attempts: record.attempts };
    } catch (error) {
      if (error instanceof RoutedCallError) {
        return {
          workflowId,
          status,
          ...(error.record ? { record: error.record } : {}),
          attempts: error.record?.attempts ?? [],
          error: { type: error.type, message: error.message },
        };
      }
      // Terminated and timed-out runs carry no record, and querying a closed run would need a worker.
      if (error instanceof WorkflowFailedError) {
        const cause = error.cause;
        const type =
          cause instanceof TerminatedFailure
            ? 'Terminated'
            : cause instanceof TimeoutFailure
              ? 'TimedOut'
              : (cause?.name ?? 'Failed');
        return {
          workflowId,
          status,
          attempts: [],
          error: { type, message: cause?.message ?? error.message },
        };
      }
      throw error;
    }
  }
}
