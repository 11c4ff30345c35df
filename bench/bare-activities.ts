// The bare workflow's one activity: Switchyard's own provider-attempt activity on the shared client. Worker side.
import type { Client } from '@temporalio/client';
import type { Config } from 'switchyard';
import { createActivities, type ProviderRegistry } from 'switchyard/worker';

/** Task queue of the bare workflow's worker (its own, so it never shares slots with routed calls). */
export const BARE_TASK_QUEUE = 'bench-bare';

/** Switchyard's provider-attempt activity (`callProvider`), from the worker's own set, on `providers`' clients. */
export function createBareActivities(dependencies: {
  readonly config: Config;
  readonly client: Client;
  readonly providers: ProviderRegistry;
}) {
  // `callProvider` reaches no entity workflow, so the entity task queue the set is given is never used.
  const { callProvider } = createActivities({ ...dependencies, taskQueue: BARE_TASK_QUEUE });
  return { callProvider };
}

export type BareActivities = ReturnType<typeof createBareActivities>;
