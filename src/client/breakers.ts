// The breakers API: list, read and reset circuit-breaker entities. Node side.
import { SwitchyardError } from '../config/branded-error';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { initialBreakerState, parseBreakerKey, type BreakerState } from '../routing/breaker-state';
import { judgeSeenPolicies, type JudgedBreakerPolicy } from '../routing/breaker-judgement';
import { readBreakerState } from '../routing/breaker-migration';
import type { breakerWorkflow } from '../workflows/breaker/breaker-workflow';
import {
  BREAKER_WORKFLOW_TYPE,
  breakerKeyOfWorkflowId,
  breakerWorkflowId,
  resetUpdate,
  stateQuery,
  type BreakerSnapshot,
} from '../workflows/breaker/definitions';
import { InvalidRequestError } from './errors';

/** One breaker as the API reports it. */
export interface BreakerView {
  /** `provider/model`. */
  readonly key: string;
  readonly provider: string;
  readonly model: string;
  readonly workflowId: string;
  /**
   * False when no breaker entity is running: nothing has ever failed on this key (healthy calls never start
   * one), so it is closed.
   */
  readonly exists: boolean;
  /**
   * The shared facts: the streak, the last failure, the one probe, the transitions and counts. `state.status`
   * is the breaker as judged by the strictest policy seen (lowest threshold, longest cooldown among equals).
   */
  readonly state: BreakerState;
  /**
   * How each route policy the breaker has seen (in the last day) judges the shared counts, strictest first:
   * routes with different thresholds or cooldowns may skip the target while others still call it.
   */
  readonly policies: readonly JudgedBreakerPolicy[];
  /** Runs of the entity before the current one (continue-as-new count); 0 when it does not exist. */
  readonly generation: number;
  /** Events in the entity's current run; 0 when it does not exist. */
  readonly historyLength: number;
}

/** A listed breaker whose state could not be read (no worker answered its query in time). */
export interface UnreadableBreaker {
  readonly key: string;
  readonly provider: string;
  readonly model: string;
  readonly workflowId: string;
  readonly exists: true;
  /** Why it could not be read. */
  readonly readError: string;
}

export interface ListOptions {
  /** Only the breakers of this provider. @default every provider */
  readonly provider?: string;
}

export interface BreakersOptions {
  /**
   * How long to wait for a worker to answer a breaker's state query, in milliseconds. Queries are answered
   * by workers, so with none running on the breaker's task queue they wait until this deadline.
   * @default 10000
   */
  readonly queryTimeoutMs?: number;
  /** How many breakers `list` reads at once. @default 8 */
  readonly listConcurrency?: number;
}

export interface ResetOptions {
  /** Who resets, recorded in the transition log. @default 'api' */
  readonly by?: string;
  /** Why, recorded in the transition log. @default 'reset by an operator' */
  readonly detail?: string;
}

/** A breaker that could not be read (no worker answered its query in time, or the query failed). */
export class BreakerUnavailableError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.BreakerUnavailableError';

  override readonly name = 'BreakerUnavailableError';
  constructor(
    message: string,
    readonly key: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

function parseKey(key: string): { provider: string; model: string } {
  const parsed = parseBreakerKey(key);
  if (!parsed) throw new InvalidRequestError(`a breaker key is "provider/model", got "${key}"`, 'key');
  return parsed;
}

function fromSnapshot(workflowId: string, snapshot: BreakerSnapshot): BreakerView {
  // A worker still running earlier code answers with the earlier shape: read it as this version's.
  const state = readBreakerState(snapshot.state);
  return { ...snapshot, state, policies: judgeSeenPolicies(state), workflowId, exists: true };
}

function missing(key: string, provider: string, model: string): BreakerView {
  return {
    key,
    provider,
    model,
    workflowId: breakerWorkflowId(provider, model),
    exists: false,
    state: initialBreakerState(),
    policies: [],
    generation: 0,
    historyLength: 0,
  };
}

/** Lists, reads and resets the circuit breakers of every `(provider, model)`. */
export class Breakers {
  private readonly queryTimeoutMs: number;
  private readonly listConcurrency: number;

  constructor(
    private readonly client: Client,
    options: BreakersOptions = {},
  ) {
    this.queryTimeoutMs = options.queryTimeoutMs ?? 10_000;
    this.listConcurrency = options.listConcurrency ?? 8;
  }

  /**
   * Every running breaker entity, sorted by key. Keys that never saw a counted failure have no entity and are
   * not listed (they are closed). A breaker no worker answers for within the query timeout is listed as
   * {@link UnreadableBreaker} rather than failing the whole list.
   */
  async list(options: ListOptions = {}): Promise<(BreakerView | UnreadableBreaker)[]> {
    const workflowIds: string[] = [];
    const query = `WorkflowType = '${BREAKER_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
    for await (const execution of this.client.workflow.list({ query })) {
      const key = breakerKeyOfWorkflowId(execution.workflowId);
      if (!key) continue;
      if (options.provider !== undefined && parseBreakerKey(key)!.provider !== options.provider) continue;
      workflowIds.push(execution.workflowId);
    }
    workflowIds.sort();
    const views: (BreakerView | UnreadableBreaker)[] = new Array(workflowIds.length);
    let next = 0;
    const readers = Array.from({ length: Math.min(this.listConcurrency, workflowIds.length) }, async () => {
      while (next < workflowIds.length) {
        const index = next;
        next += 1;
        const workflowId = workflowIds[index]!;
        const key = breakerKeyOfWorkflowId(workflowId)!;
        const { provider, model } = parseKey(key);
        try {
          views[index] =
            (await this.read(key, this.handle(provider, model))) ?? missing(key, provider, model);
        } catch (error) {
          if (!(error instanceof BreakerUnavailableError)) throw error;
          views[index] = { key, provider, model, workflowId, exists: true, readError: error.message };
        }
      }
    });
    await Promise.all(readers);
    return views;
  }

  /** The breaker of `provider/model`; a key with no entity reads as closed with `exists: false`. */
  async get(key: string): Promise<BreakerView> {
    const { provider, model } = parseKey(key);
    return (await this.read(key, this.handle(provider, model))) ?? missing(key, provider, model);
  }

  /**
   * Closes the breaker of `provider/model`, forgetting its failures and any probe; the reset is logged as a
   * transition. Workers see it within their hint TTL. A key with no entity is already closed: nothing starts.
   */
  async reset(key: string, options: ResetOptions = {}): Promise<BreakerView> {
    const { provider, model } = parseKey(key);
    const handle = this.handle(provider, model);
    try {
      const snapshot = await handle.executeUpdate(resetUpdate, {
        args: [
          { by: options.by ?? 'api', ...(options.detail !== undefined ? { detail: options.detail } : {}) },
        ],
      });
      return fromSnapshot(handle.workflowId, snapshot);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return missing(key, provider, model);
      throw error;
    }
  }

  private handle(provider: string, model: string): WorkflowHandle<typeof breakerWorkflow> {
    return this.client.workflow.getHandle(breakerWorkflowId(provider, model));
  }

  private async read(
    key: string,
    handle: WorkflowHandle<typeof breakerWorkflow>,
  ): Promise<BreakerView | undefined> {
    try {
      const snapshot = await this.client.withDeadline(Date.now() + this.queryTimeoutMs, () =>
        handle.query(stateQuery),
      );
      return fromSnapshot(handle.workflowId, snapshot);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      const reason = error instanceof Error ? error.message : String(error);
      throw new BreakerUnavailableError(
        `cannot read breaker ${key}: ${reason} (is a Switchyard worker running on its task queue?)`,
        key,
        error,
      );
    }
  }
}
