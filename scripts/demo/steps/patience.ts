// Tour step: both targets are down for a while; a patient call waits the outage out instead of failing. Script side.
import { RoutedCallInputSchema } from '../../../src/config/routed-call-input';
import { DemoModels } from '../demo-config';
import { say, withProgress } from '../progress';
import { printRecord, prompt, type TourStep } from '../tour';

const OUTAGE_MS = 6_000;
const PATIENCE_MS = 60_000;

/** Whether routed calls accept `patienceMs` in this build. */
function hasPatience(): boolean {
  return 'patienceMs' in RoutedCallInputSchema.shape;
}

export const patienceStep: TourStep = {
  title: `Patience through an outage: both targets of route "patient" fail for ${OUTAGE_MS / 1000} s, the call waits and then answers`,
  skip: () => (hasPatience() ? undefined : 'skipped: routed calls in this build have no patienceMs yet'),
  async run(tour) {
    const { fake, switchyard } = tour;
    const until = Date.now() + OUTAGE_MS;
    fake.outage(DemoModels.patientFirst, {
      until,
      scenario: { kind: 'error', error: 'service_unavailable' },
    });
    fake.outage(DemoModels.patientSecond, { until });
    const input = { route: 'patient', patienceMs: PATIENCE_MS, ...prompt('Draft the nightly report.') };
    const handle = await switchyard.start(input);
    say(
      `  started with patience ${PATIENCE_MS / 1000} s; the providers come back at ${new Date(until).toISOString()}`,
    );
    const { record } = await withProgress('a patient call rides out the outage', handle.result(), {
      status: async () => {
        const attempts = await handle.attempts();
        const round = Math.max(1, ...attempts.map((attempt) => (attempt as { round?: number }).round ?? 1));
        return `round ${round}, ${attempts.length} attempts so far`;
      },
    });
    printRecord(tour, record);
  },
};
