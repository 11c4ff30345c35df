// The bare workflow's one activity: Switchyard's own provider-attempt activity on the shared client. Worker side.
import { createCallProvider } from '../src/activities/call-provider';
import type { ProviderRegistry } from '../src/activities/provider-registry';

/** Task queue of the bare workflow's worker (its own, so it never shares slots with routed calls). */
export const BARE_TASK_QUEUE = 'bench-bare';

export function createBareActivities(providers: ProviderRegistry) {
  return { callProvider: createCallProvider(providers) };
}

export type BareActivities = ReturnType<typeof createBareActivities>;
