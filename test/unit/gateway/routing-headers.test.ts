// The gateway's x-switchyard-prefer and x-switchyard-require request headers: read into the call input, refused
// naming the header when they say nothing a call could use.
import { preferChoice, requireChoice } from '../../../src/gateway/call-input';
import { GatewayError, toGatewayError } from '../../../src/gateway/gateway-error';
import { prepareWithHeaders } from './prepared-call';

const prepare = prepareWithHeaders;

function refusalOf(body: () => unknown): GatewayError | undefined {
  try {
    body();
  } catch (error) {
    return toGatewayError(error);
  }
  return undefined;
}

test('a preference is read whatever its case; absent leaves the route its strategy', () => {
  expect(preferChoice('cost')).toBe('cost');
  expect(preferChoice(' Latency ')).toBe('latency');
  expect(preferChoice('RELIABILITY')).toBe('reliability');
  expect(preferChoice(undefined)).toBeUndefined();
  expect(prepare({ preferHeader: 'latency' }).input.prefer).toBe('latency');
  expect('prefer' in prepare({}).input).toBe(false);
});

test('requirements are a JSON object checked field by field; absent means no filters', () => {
  expect(requireChoice('{"capabilities":["tools","images"]}')).toEqual({ capabilities: ['tools', 'images'] });
  expect(requireChoice(' {"maxLatencyMs": 2000, "maxCostUsd": 0.01} ')).toEqual({
    maxLatencyMs: 2000,
    maxCostUsd: 0.01,
  });
  expect(requireChoice('{}')).toEqual({});
  expect(requireChoice(undefined)).toBeUndefined();
  expect(prepare({ requireHeader: '{"capabilities":["reasoning"],"maxCostUsd":0.5}' }).input.require).toEqual(
    {
      capabilities: ['reasoning'],
      maxCostUsd: 0.5,
    },
  );
  expect('require' in prepare({}).input).toBe(false);
});

test.each(['', 'cheapest', 'cost,latency', 'fast'])(
  'x-switchyard-prefer "%s" is refused naming the header',
  (value) => {
    const refusal = refusalOf(() => prepare({ preferHeader: value }));
    expect(refusal?.status).toBe(400);
    expect(refusal?.message).toContain('x-switchyard-prefer');
    expect(refusal?.context.param).toBe('x-switchyard-prefer');
  },
);

test.each([
  ['not JSON', '{capabilities:[tools]}', 'JSON object'],
  ['empty', '', 'JSON object'],
  ['an array', '["tools"]', 'JSON object'],
  ['null', 'null', 'JSON object'],
  ['a string', '"tools"', 'JSON object'],
  ['an unknown capability', '{"capabilities":["video"]}', 'capabilities.0'],
  ['a zero latency', '{"maxLatencyMs":0}', 'maxLatencyMs'],
  ['a fractional latency', '{"maxLatencyMs":1.5}', 'maxLatencyMs'],
  ['a negative cost', '{"maxCostUsd":-1}', 'maxCostUsd'],
  ['a cost as text', '{"maxCostUsd":"0.01"}', 'maxCostUsd'],
  ['an unknown field', '{"maxTokens":10}', 'maxTokens'],
])('x-switchyard-require with %s is refused naming the header and the field', (_case, value, named) => {
  const refusal = refusalOf(() => prepare({ requireHeader: value }));
  expect(refusal?.status).toBe(400);
  expect(refusal?.message).toContain('x-switchyard-require');
  expect(refusal?.message).toContain(named);
  expect(refusal?.context.param).toBe('x-switchyard-require');
});
