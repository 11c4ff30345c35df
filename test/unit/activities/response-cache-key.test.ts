// The response cache's key: equal questions share one digest, anything that could change the answer does not.
import { cacheKeyDigest, type CacheKeyParts } from '../../../src/activities/response-cache';
import { GenerationRequestSchema } from '../../../src/config/request';

const request = GenerationRequestSchema.parse({
  messages: [{ role: 'user', content: 'hello' }],
  maxOutputTokens: 64,
});
const parts: CacheKeyParts = {
  request,
  route: { name: 'faq', targets: [{ provider: 'openai', model: 'gpt-primary' }] },
  scope: 'team-a',
};
const digest = (changed: Partial<CacheKeyParts>, taskQueue = 'switchyard-entities') =>
  cacheKeyDigest(taskQueue, { ...parts, ...changed });

test('the same question in another key order, or with an absent optional spelled out, is one key', () => {
  const reordered = Object.fromEntries(Object.entries(request).reverse()) as typeof request;
  expect(digest({ request: reordered })).toBe(digest({}));
  expect(digest({ prefer: undefined })).toBe(digest({}));
  expect(digest({})).toMatch(/^[0-9a-f]{64}$/);
});

test('the request, route, version, targets, scope, gateway key, limits, routing asks and entity queue each change the key', () => {
  const others = [
    digest({ request: { ...request, maxOutputTokens: 65 } }),
    digest({ request: { ...request, messages: [{ role: 'user', content: 'hello!' }] } }),
    digest({ route: { ...parts.route, name: 'other' } }),
    digest({ route: { ...parts.route, version: 2 } }),
    digest({ route: { ...parts.route, targets: [{ provider: 'openai', model: 'gpt-secondary' }] } }),
    digest({ scope: 'team-b' }),
    digest({ scope: undefined }),
    digest({ gatewayKey: '0123456789ab' }),
    digest({ maxCostUsd: 0.01 }),
    digest({ deadlineMs: 5_000 }),
    digest({ prefer: 'cost' }),
    digest({ require: { maxLatencyMs: 1000 } }),
    digest({}, 'other-entities'),
  ];
  expect(new Set([digest({}), ...others]).size).toBe(others.length + 1);
});
