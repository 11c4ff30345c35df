// Tour step: a budget scope pays for one call, then refuses a call whose worst case does not fit. Script side.
import { renderLedger } from '../../../src/cli/render-ledger';
import { RoutedCallError } from '../../../src/client/errors';
import { ledgerWorkflowId } from '../../../src/workflows/ledger/ledger-definitions';
import { DEMO_BUDGET, DemoModels } from '../demo-config';
import { workflowLink } from '../demo-stack';
import { indented, say, withProgress } from '../progress';
import { printRecord, prompt, type TourStep } from '../tour';

export const budgetStep: TourStep = {
  title: `A budget refusal: scope "${DEMO_BUDGET.scope}" has ${DEMO_BUDGET.limitUsd} USD; a call that might cost more is refused before any request`,
  async run(tour) {
    const { fake, switchyard } = tour;
    fake.script(DemoModels.primary, { kind: 'answer', usage: { inputTokens: 12, outputTokens: 30 } });
    const { record } = await withProgress(
      'a call with max 500 output tokens (worst case about 0.0003 USD) fits',
      switchyard.generate({
        route: 'support',
        budget: DEMO_BUDGET.scope,
        ...prompt('Summarise our week.', 500),
      }),
    );
    printRecord(tour, record);

    const requestsBefore = fake.requests.length;
    try {
      await withProgress(
        'a call with max 4000 output tokens (worst case 0.0024 USD on the cheapest target) does not',
        switchyard.generate({
          route: 'support',
          budget: DEMO_BUDGET.scope,
          ...prompt('Write a novel.', 4_000),
        }),
      );
      // The tour shows a refusal: a call that went through means the story no longer holds, so the demo fails.
      throw new Error('the call whose worst case does not fit the budget was not refused');
    } catch (error) {
      if (!(error instanceof RoutedCallError) || error.type !== 'BudgetExceeded') throw error;
      say(`\n  ${error.type}: ${error.message}`);
      if (error.record) printRecord(tour, error.record);
    }
    say(`  requests sent to any provider for the refused call: ${fake.requests.length - requestsBefore}`);

    const ledger = await switchyard.ledgers.get(DEMO_BUDGET.scope);
    if (ledger) {
      say('');
      indented(renderLedger(ledger));
      say(`  Web UI: ${workflowLink(tour.uiUrl, ledgerWorkflowId(DEMO_BUDGET.scope))}`);
    }
  },
};
