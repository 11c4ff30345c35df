// The gateway's response-cache header: the caller's choice read from the request, the outcome written back.
import { cacheChoice } from '../../../src/gateway/call-input';
import { GatewayError, toGatewayError } from '../../../src/gateway/gateway-error';
import { routingHeaders, summaryOf } from '../../../src/gateway/routing-summary';
import type { RoutingRecord } from '../../../src/routing/routing-record';
import { prepareWithHeaders } from './prepared-call';

function prepare(cacheHeader: string | undefined) {
  return prepareWithHeaders(cacheHeader !== undefined ? { cacheHeader } : {});
}

test('on, off and a TTL in seconds become the call input; absent leaves the route to decide', () => {
  expect(cacheChoice('on')).toBe(true);
  expect(cacheChoice(' OFF ')).toBe(false);
  expect(cacheChoice('90')).toEqual({ ttlMs: 90_000 });
  expect(cacheChoice('604800')).toEqual({ ttlMs: 604_800_000 });
  expect(cacheChoice(undefined)).toBeUndefined();
  expect(prepare('30').input.cache).toEqual({ ttlMs: 30_000 });
  expect(prepare('off').input.cache).toBe(false);
  expect('cache' in prepare(undefined).input).toBe(false);
});

test.each(['yes', '0', '1.5', '-3', '604801', ''])('"%s" is refused naming the header', (value) => {
  let refusal: GatewayError | undefined;
  try {
    prepare(value);
  } catch (error) {
    refusal = toGatewayError(error);
  }
  expect(refusal?.status).toBe(400);
  expect(refusal?.message).toContain('x-switchyard-cache');
  expect(refusal?.context.param).toBe('x-switchyard-cache');
});

test('a hit and a miss are told in x-switchyard-cache; an uncached call sends no such header', () => {
  const record: RoutingRecord = {
    route: 'cheap',
    workflowId: 'switchyard-call-1',
    fallbacks: 0,
    rounds: 0,
    totalCostNanoUsd: 0,
    totalCostUsd: 0,
    attempts: [],
  };
  const headers = (cache?: 'hit' | 'miss') =>
    routingHeaders(summaryOf('switchyard-call-1', 'cheap', { ...record, ...(cache ? { cache } : {}) }));
  expect(headers('hit')['x-switchyard-cache']).toBe('hit');
  expect(headers('miss')['x-switchyard-cache']).toBe('miss');
  expect(headers()).not.toHaveProperty('x-switchyard-cache');
});
