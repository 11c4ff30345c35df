// The static details and visibility queries a routed call is found and read by in the Temporal UI.
import { routedCallStaticDetails } from '../../../src/client/call-details';
import {
  callsServedByProviderQuery,
  callsWithFallbackQuery,
  failedCallsQuery,
  quoteQueryValue,
} from '../../../src/client/visibility-queries';
import { parseConfig } from '../../../src/config/load-config';
import { RoutedCallInputSchema, type RoutedCallInputValue } from '../../../src/config/routed-call-input';

const config = parseConfig({
  providers: {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'K',
      models: { 'gpt-4o-mini': { inputUsdPerMillion: 1, outputUsdPerMillion: 1 } },
    },
    anthropic: {
      kind: 'anthropic',
      apiKeyEnv: 'A',
      models: { 'claude-haiku-4-5': { inputUsdPerMillion: 1, outputUsdPerMillion: 1 } },
    },
  },
  routes: {
    support: {
      targets: [
        { provider: 'openai', model: 'gpt-4o-mini', timeoutMs: 30_000, retries: 1 },
        { provider: 'anthropic', model: 'claude-haiku-4-5', timeoutMs: 1_500 },
      ],
    },
  },
  defaultRoute: 'support',
});

const details = (input: RoutedCallInputValue, withConfig = true) =>
  routedCallStaticDetails(RoutedCallInputSchema.parse(input), withConfig ? config : undefined);

const request = {
  system: 'Secret system prompt',
  messages: [{ role: 'user' as const, content: 'Secret question' }],
};

test('details name the route, its targets in order and a digest of the request, never its text', () => {
  const text = details({
    route: 'support',
    request,
    budget: 'team-a',
    deadlineMs: 90_000,
    labels: { ticket: '4711' },
  });
  expect(text.split('\n')).toEqual([
    '**Route** support',
    '',
    '1. openai/gpt-4o-mini (timeout 30 s, 1 retry)',
    '2. anthropic/claude-haiku-4-5 (timeout 1.5 s)',
    '',
    expect.stringMatching(
      /^\*\*Request\*\* digest [0-9a-f]{12} · 1 message · system prompt · max 1024 output tokens$/,
    ),
    '',
    '**Limits** budget scope team-a · deadline 90 s',
    '',
    '**Labels** ticket=4711',
  ]);
  expect(text).not.toContain('Secret');
});

test('the default route and inline routes are described; without a config the worker resolves the targets', () => {
  expect(details({ request })).toContain('**Route** support\n\n1. openai/gpt-4o-mini');
  const inline = details(
    { route: { targets: [{ provider: 'openai', model: 'gpt-4o-mini' }] }, request },
    false,
  );
  expect(inline).toContain('**Route** inline\n\n1. openai/gpt-4o-mini (timeout 60 s)');
  expect(details({ route: 'support', request }, false)).toContain('targets: resolved by the worker');
});

test('the queries of docs/observability.md, with values quoted safely', () => {
  expect(callsWithFallbackQuery('support')).toBe("SwitchyardRoute = 'support' AND SwitchyardFallbacks > 0");
  expect(callsServedByProviderQuery('anthropic')).toBe("SwitchyardServedBy STARTS_WITH 'anthropic/'");
  expect(failedCallsQuery('support')).toBe("SwitchyardRoute = 'support' AND ExecutionStatus = 'Failed'");
  expect(quoteQueryValue("it's")).toBe("'it\\'s'");
});
