// Attempts that have their answer but cannot report their completion: a call that cannot end, for tests of
// answers handed over ahead of the call's record. Test side.
import { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Holds every finished `attemptTarget` back from reporting its completion to Temporal until `release()`: the
 * attempt has its answer, but its call cannot end. Released on the worker's shutdown too (the activity is
 * cancelled then).
 */
export function holdAttemptCompletions(): { workerOptions: Partial<WorkerOptions>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const factory: ActivityInterceptorsFactory = (context) => ({
    inbound: {
      execute: async (input, next) => {
        const result = await next(input);
        if (context.info.activityType === 'attemptTarget') {
          await Promise.race([released, Context.current().cancelled.catch(() => undefined)]);
        }
        return result;
      },
    },
  });
  return { workerOptions: { interceptors: { activity: [factory] } }, release };
}

/** A request that must be answered while its call's attempt is held: it fails the test after `ms` instead. */
export function answeredWithin<T>(request: Promise<T>, ms = 30_000): Promise<T> {
  return Promise.race([
    request,
    delay(ms).then(() => {
      throw new Error(`no answer within ${ms} ms while the call's attempt was held`);
    }),
  ]);
}
