// The application API: start, wait for, plan and inspect routed calls. Node side.
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import type { Config } from '../config/config';
import { loadConfig } from '../config/load-config';
import { resolveRoute, RouteResolutionError } from '../config/resolve-route';
import { RoutedCallInputSchema, type RoutedCallInput, type RoutedCallInputValue } from '../config/routed-call-input';
import { planCall, type CallPlan } from '../routing/call-plan';
import type { AttemptRecord, RoutedCallResult } from '../routing/routing-record';
import { attemptsQuery, DEFAULT_TASK_QUEUE, routedCallWorkflowId } from '../workflows/definitions';
import type { routedCallWorkflow } from '../workflows/routed-call/routed-call-workflow';
import { InvalidRequestError, toRoutedCallError } from './errors';
import { staticSummary } from './request-digest';

export interface SwitchyardClientOptions {
  /** A connected Temporal client (see `connectClient`). */
  readonly client: Client;
  /** @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /** Config used by `plan`; @default loaded from `SWITCHYARD_CONFIG` on first use */
  readonly config?: Config;
}

export interface CallOptions {
  /**
   * Makes the call idempotent: it becomes the workflow id, so the same key never runs twice and a repeat
   * returns the first call's result (or error) without calling any provider again.
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

/** Validates a call's input and names the first bad field, before anything starts. */
export function validateCallInput(input: RoutedCallInputValue): RoutedCallInput {
  const parsed = RoutedCallInputSchema.safeParse(input);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? '';
    throw new InvalidRequestError(`Invalid routed call:\n${z.prettifyError(parsed.error)}`, field);
  }
  return parsed.data;
}

export class SwitchyardClient {
  readonly taskQueue: string;
  private config: Config | undefined;

  constructor(private readonly options: SwitchyardClientOptions) {
    this.taskQueue = options.taskQueue ?? process.env.SWITCHYARD_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    this.config = options.config;
  }

  get temporal(): Client {
    return this.options.client;
  }

  /** Starts a routed call and returns a handle to it. */
  async start(input: RoutedCallInputValue, options: CallOptions = {}): Promise<RoutedCallHandle> {
    const validated = validateCallInput(input);
    const workflowId = options.idempotencyKey ? routedCallWorkflowId(options.idempotencyKey) : routedCallWorkflowId(randomUUID());
    const routeLabel = typeof validated.route === 'string' ? validated.route : validated.route ? 'inline' : 'default';
    try {
      await this.temporal.workflow.start<typeof routedCallWorkflow>('routedCallWorkflow', {
        taskQueue: this.taskQueue,
        workflowId,
        args: [validated],
        // A running call with this key is joined; a finished one is never run again (its result is read).
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        staticSummary: staticSummary(routeLabel, validated.request),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    return this.handle(workflowId);
  }

  /** Starts a routed call and waits for its answer. */
  async generate(input: RoutedCallInputValue, options: CallOptions = {}): Promise<RoutedCallResult> {
    return (await this.start(input, options)).result();
  }

  /** A handle to an existing routed call. */
  handle(workflowId: string): RoutedCallHandle {
    const handle: WorkflowHandle<typeof routedCallWorkflow> = this.temporal.workflow.getHandle(workflowId);
    return {
      workflowId,
      result: async () => {
        try {
          return await handle.result();
        } catch (error) {
          throw toRoutedCallError(error, workflowId);
        }
      },
      attempts: () => handle.query(attemptsQuery),
      cancel: () => handle.cancel().then(() => undefined),
    };
  }

  /** What a call would do now — attempts, timeouts, cost bounds — without starting it or calling a provider. */
  plan(input: RoutedCallInputValue): CallPlan {
    const validated = validateCallInput(input);
    this.config ??= loadConfig();
    try {
      const route = resolveRoute(this.config, validated.route);
      return planCall(route, validated.request, validated.deadlineMs);
    } catch (error) {
      if (error instanceof RouteResolutionError) throw new InvalidRequestError(error.message, error.field);
      throw error;
    }
  }
}
