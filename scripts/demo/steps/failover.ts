// Tour step: the first target answers 429 and the call fails over to the second. Script side.
import { DemoModels } from '../demo-config';
import { say, withProgress } from '../progress';
import { printRecord, prompt, type TourStep } from '../tour';

export const failoverStep: TourStep = {
  title: `Failover on 429: openai/${DemoModels.primary} is rate limited, anthropic/${DemoModels.secondary} answers`,
  async run(tour) {
    // Its Retry-After pauses the target for every caller; kept short, so the pause is over before the budget step
    // sends to this target again.
    tour.fake.script(DemoModels.primary, { kind: 'error', error: 'rate_limited', retryAfterSeconds: 2 });
    tour.fake.script(DemoModels.secondary, {
      kind: 'answer',
      text: 'Hello from the second target!',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
    const { answer, record } = await withProgress(
      'routed call on route "support"',
      tour.switchyard.generate({ route: 'support', ...prompt('Say hello in one sentence.') }),
    );
    say(`\n  answer: ${answer.text}`);
    printRecord(tour, record);
  },
};
