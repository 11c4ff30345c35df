// Tour step: a failing target's breaker opens, later calls skip it, and after the cooldown one call probes it. Script side.
import { renderTable } from '../../../src/cli/text-table';
import type { RoutingRecord } from '../../../src/routing/routing-record';
import { breakerWorkflowId } from '../../../src/workflows/breaker/definitions';
import { DEMO_BREAKER_COOLDOWN_MS, DemoModels } from '../demo-config';
import { workflowLink } from '../demo-stack';
import { indented, say, waitWithProgress, withProgress } from '../progress';
import { printRecord, prompt, type TourStep } from '../tour';

const key = { provider: 'openai', model: DemoModels.flaky };
const CONCURRENT_CALLS = 3;

function firstAttempt(record: RoutingRecord): string {
  const first = record.attempts[0];
  return first ? `${first.outcome}${first.skipReason ? ` (${first.skipReason})` : ''}` : 'none';
}

export const breakerStep: TourStep = {
  title: `A circuit breaker: openai/${DemoModels.flaky} keeps failing with 500, its breaker opens, then one call probes it`,
  async run(tour) {
    const { fake, switchyard } = tour;
    fake.scriptAlways(DemoModels.flaky, { kind: 'error', error: 'server_error' });

    say('  Route "flaky" opens a breaker after 2 counted failures, for 5 s.');
    for (const call of [1, 2]) {
      const { record } = await withProgress(
        `call ${call}: openai/${DemoModels.flaky} answers 500, the call fails over`,
        switchyard.generate({ route: 'flaky', ...prompt(`Breaker call ${call}`) }),
      );
      if (call === 2) printRecord(tour, record);
    }
    const sentBefore = fake.counters(DemoModels.flaky).requests;
    const { record: skipped } = await withProgress(
      'call 3: the breaker is open, so the target is skipped without a request',
      switchyard.generate({ route: 'flaky', ...prompt('Breaker call 3') }),
    );
    printRecord(tour, skipped);
    say(
      `  requests that reached openai/${DemoModels.flaky} during call 3: ${fake.counters(DemoModels.flaky).requests - sentBefore}`,
    );

    await waitWithProgress('waiting out the cooldown', DEMO_BREAKER_COOLDOWN_MS + 500);
    // The provider has recovered; its answer takes a moment, so the other calls arrive while the probe is out.
    fake.reset();
    fake.scriptAlways(DemoModels.flaky, { kind: 'answer', text: 'I am back.', delayMs: 1_500 });
    const calls = await withProgress(
      `${CONCURRENT_CALLS} calls at once: exactly one gets the probe, the others skip the target`,
      Promise.all(
        Array.from({ length: CONCURRENT_CALLS }, (_, index) =>
          switchyard.generate({ route: 'flaky', ...prompt(`Probe race ${index + 1}`) }),
        ),
      ),
    );
    say('');
    indented(
      renderTable(
        [
          { header: 'call' },
          { header: `openai/${DemoModels.flaky}` },
          { header: 'served by' },
          { header: 'workflow' },
        ],
        calls.map(({ record }, index) => [
          String(index + 1),
          firstAttempt(record),
          record.servedBy ? `${record.servedBy.provider}/${record.servedBy.model}` : 'none',
          record.workflowId,
        ]),
      ),
    );

    const breaker = await switchyard.breakers.get(`${key.provider}/${key.model}`);
    say(`\n  breaker openai/${DemoModels.flaky} is ${breaker.state.status}; its transitions:`);
    indented(
      renderTable(
        [{ header: 'from' }, { header: 'to' }, { header: 'reason' }, { header: 'at' }],
        breaker.state.transitions.map((transition) => [
          transition.from,
          transition.to,
          transition.reason,
          transition.at,
        ]),
      ),
    );
    say(`  Web UI: ${workflowLink(tour.uiUrl, breakerWorkflowId(key.provider, key.model))}`);
    fake.reset();
  },
};
