// Reaching a breaker entity from a worker: reads by query, each access within a time bound, and a memory of the
// breakers that could not be reached lately. Worker side.
import {
  QueryRejectedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { SwitchyardError } from '../config/branded-error';
import { breakerKey, initialBreakerState, type BreakerState } from '../routing/breaker-state';
import { breakerWorkflowId, stateQuery } from '../workflows/breaker/definitions';
import { openRunQueries } from './open-run-queries';

/**
 * How long one read or update of a breaker entity may take before the breaker counts as unreachable, in
 * milliseconds. An entity whose worker is gone never answers: without a bound every call would wait for its
 * local activity's own timeouts (up to 15 s) before treating the target as open.
 */
export const BREAKER_ACCESS_TIMEOUT_MS = 3_000;
/** How long a worker remembers that a breaker could not be reached, in milliseconds: calls skip it at once. */
export const BREAKER_UNREACHABLE_MEMORY_MS = 5_000;

export class BreakerUnreachableError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.BreakerUnreachableError';

  override readonly name = 'BreakerUnreachableError';
  constructor(
    readonly key: string,
    readonly retryAtMs: number,
  ) {
    super(`breaker ${key} could not be reached`);
  }
}

/** Rejects with `onTimeout()` when `operation` has not settled within `timeoutMs`. */
async function within<T>(operation: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([operation, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a breaker's state with a query: queries add nothing to the entity's history. */
function createStateReader(client: Client) {
  // A closed run (terminated by an operator) must read as "no breaker", not as its last state.
  const workflows = openRunQueries(client);
  return async function readBreaker(
    provider: string,
    model: string,
  ): Promise<{ state: BreakerState; exists: boolean }> {
    try {
      const snapshot = await workflows.getHandle(breakerWorkflowId(provider, model)).query(stateQuery);
      return { state: snapshot.state, exists: true };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || error instanceof QueryRejectedError) {
        return { state: initialBreakerState(), exists: false };
      }
      throw error;
    }
  };
}

export interface BreakerReachDependencies {
  /** The worker's own Temporal client. */
  readonly client: Client;
  /** @default {@link BREAKER_ACCESS_TIMEOUT_MS} */
  readonly accessTimeoutMs?: number;
}

/** `reach` runs one access of a breaker entity within the bound; `readBreaker` reads one breaker's state. */
export function createBreakerReach(dependencies: BreakerReachDependencies) {
  const readEntity = createStateReader(dependencies.client);
  const accessTimeoutMs = dependencies.accessTimeoutMs ?? BREAKER_ACCESS_TIMEOUT_MS;
  /** Breakers this worker could not reach lately, by key: until when they are skipped without trying. */
  const unreachableUntil = new Map<string, number>();

  function checkReachable(key: string): void {
    const until = unreachableUntil.get(key);
    if (until === undefined) return;
    if (Date.now() < until) throw new BreakerUnreachableError(key, until);
    unreachableUntil.delete(key);
  }

  /** Runs one entity access within the access timeout; a failure marks the breaker unreachable for a while. */
  async function reach<T>(key: string, operation: () => Promise<T>): Promise<T> {
    checkReachable(key);
    try {
      return await within(
        operation(),
        accessTimeoutMs,
        () => new Error(`no answer in ${accessTimeoutMs} ms`),
      );
    } catch (error) {
      // A refusal by the entity itself (an invalid message) is an answer; only silence and transport errors
      // mean it cannot be reached.
      if (error instanceof WorkflowUpdateFailedError) throw error;
      const until = Date.now() + BREAKER_UNREACHABLE_MEMORY_MS;
      unreachableUntil.set(key, until);
      throw new BreakerUnreachableError(key, until);
    }
  }

  const readBreaker = (provider: string, model: string) =>
    reach(breakerKey(provider, model), () => readEntity(provider, model));

  return { reach, readBreaker };
}
