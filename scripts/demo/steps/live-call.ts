// Tour step: one call on the real providers, when OPENAI_API_KEY or ANTHROPIC_API_KEY is set. Script side.
import { RoutedCallError } from '../../../src/client/errors';
import { say, withProgress } from '../progress';
import { printRecord, prompt, type TourStep } from '../tour';

export const liveCallStep: TourStep = {
  title: 'A real call: route "live" on the providers whose keys are set',
  skip: (tour) =>
    tour.live.openai || tour.live.anthropic
      ? undefined
      : 'skipped: set OPENAI_API_KEY and/or ANTHROPIC_API_KEY to add a call on the real APIs',
  async run(tour) {
    try {
      const { answer, record } = await withProgress(
        'routed call on route "live"',
        tour.switchyard.generate({
          route: 'live',
          ...prompt('In one sentence: what is a circuit breaker?', 120),
        }),
      );
      say(`\n  answer: ${answer.text}`);
      printRecord(tour, record);
    } catch (error) {
      // A real provider can refuse (a bad key, no credit): the tour shows why and goes on.
      if (!(error instanceof RoutedCallError)) throw error;
      say(`\n  ${error.type}: ${error.message}`);
      if (error.record) printRecord(tour, error.record);
    }
  },
};
