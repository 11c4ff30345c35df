// Tour step: a scheduled generation runs every few seconds; its runs and their routing records are listed. Script side.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { RoutedCallInputValue } from '../../../src/config/routed-call-input';
import type { RoutingRecord } from '../../../src/routing/routing-record';
import { workflowLink } from '../demo-stack';
import { say, withProgress } from '../progress';
import { printRecord, prompt, type Tour, type TourStep } from '../tour';

/** The part of `switchyard.schedules` the tour uses. */
interface TourSchedules {
  create(definition: {
    id: string;
    every: string;
    call: RoutedCallInputValue;
    note?: string;
  }): Promise<unknown>;
  results(
    id: string,
    options?: { limit?: number },
  ): Promise<
    readonly {
      readonly workflowId: string;
      readonly status: string;
      readonly record?: RoutingRecord;
      readonly error?: { readonly type: string; readonly message: string };
    }[]
  >;
  delete(id: string): Promise<void>;
}

const RUNS = 2;

function schedulesOf(tour: Tour): TourSchedules | undefined {
  return (tour.switchyard as unknown as { schedules?: TourSchedules }).schedules;
}

export const scheduledStep: TourStep = {
  title: 'A scheduled generation: a Temporal Schedule makes a routed call every 2 seconds',
  skip: (tour) => (schedulesOf(tour) ? undefined : 'skipped: this build has no switchyard.schedules yet'),
  async run(tour) {
    const schedules = schedulesOf(tour)!;
    const id = `demo-digest-${randomUUID().slice(0, 6)}`;
    await schedules.create({
      id,
      every: '2s',
      call: { route: 'support', ...prompt('Write a one-line status digest.') },
      note: 'created by npm run demo',
    });
    say(
      `  schedule "${id}" created; Web UI: ${tour.uiUrl ? `${tour.uiUrl}/namespaces/default/schedules/${id}` : '(none)'}`,
    );
    let finished: Awaited<ReturnType<TourSchedules['results']>> = [];
    await withProgress(
      `waiting for ${RUNS} runs`,
      (async () => {
        // Results come from the visibility store, which catches up a moment after each run ends.
        for (let tries = 0; tries < 120; tries += 1) {
          finished = (await schedules.results(id, { limit: 10 })).filter((run) => run.status !== 'RUNNING');
          if (finished.length >= RUNS) return;
          await delay(500);
        }
        throw new Error(`the schedule made fewer than ${RUNS} runs in a minute`);
      })(),
      { status: () => `${finished.length} of ${RUNS} finished` },
    );
    await schedules.delete(id);
    say(`  schedule deleted; its ${RUNS} latest runs:`);
    for (const run of finished.slice(0, RUNS).reverse()) {
      if (run.record) printRecord(tour, run.record, [['run', run.workflowId]]);
      else say(`\n  run ${run.workflowId}: ${run.status} ${run.error ? `(${run.error.type})` : ''}`);
      say(`  run in the Web UI: ${workflowLink(tour.uiUrl, run.workflowId)}`);
    }
  },
};
