// Routing headers: every value is one a header can carry, whatever names a routing record holds.
import { validateHeaderValue } from 'node:http';
import { headerValue, routingHeaders } from '../../../src/gateway/routing-summary';

test('ASCII names pass unchanged', () => {
  expect(
    routingHeaders({
      workflowId: 'switchyard-call-abc',
      route: 'support',
      servedBy: 'openrouter/meta-llama/Llama-3.1-8B-Instruct:free',
      fallbacks: 1,
      costUsd: 0.5,
    }),
  ).toEqual({
    'x-switchyard-workflow-id': 'switchyard-call-abc',
    'x-switchyard-route': 'support',
    'x-switchyard-served-by': 'openrouter/meta-llama/Llama-3.1-8B-Instruct:free',
    'x-switchyard-fallbacks': '1',
    'x-switchyard-cost-usd': '0.500000000',
  });
});

test('a name outside Latin-1 (from a record that predates the config rule) is percent-encoded, never thrown on', () => {
  const headers = routingHeaders({
    workflowId: 'call-日本',
    route: 'r',
    servedBy: 'provider/modèle-日本 100%\n',
  });
  for (const [name, value] of Object.entries(headers))
    expect(() => validateHeaderValue(name, value)).not.toThrow();
  expect(headers['x-switchyard-served-by']).toBe('provider/mod%C3%A8le-%E6%97%A5%E6%9C%AC 100%25%0A');
  expect(decodeURIComponent(headers['x-switchyard-served-by']!)).toBe('provider/modèle-日本 100%\n');
  expect(decodeURIComponent(headers['x-switchyard-workflow-id']!)).toBe('call-日本');
});

test('a lone surrogate becomes U+FFFD instead of throwing', () => {
  expect(headerValue('a\ud800b')).toBe('a%EF%BF%BDb');
});
