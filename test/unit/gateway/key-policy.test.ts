// The gateway's key policy: a per-key output ceiling and a required budget scope, as rules and through prepareCall.
import { parseConfig } from '../../../src/config/load-config';
import { prepareCall } from '../../../src/gateway/call-input';
import { GatewayError } from '../../../src/gateway/gateway-error';
import { makeGatewayKey, StoredKeySchema, type StoredKey } from '../../../src/gateway/gateway-key';
import {
  applyKeyOutputCeiling,
  checkKeysAgainstPolicy,
  keyCreationProblem,
  keyPolicyFromEnvironment,
  KeyPolicyError,
  keyRefusal,
} from '../../../src/gateway/key-policy';
import { openAISurface } from '../../../src/gateway/openai-surface';
import { TEST_CONFIG } from '../cli/cli-test-io';

const config = parseConfig(TEST_CONFIG);
const hello = { messages: [{ role: 'user' as const, content: 'hello' }] };
const key = (extra: Partial<StoredKey> = {}): StoredKey =>
  StoredKeySchema.parse({
    id: '0123456789ab',
    sha256: '0'.repeat(64),
    routes: ['*'],
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  });

function prepare(
  stored: StoredKey,
  request: typeof hello & { maxOutputTokens?: number },
  requireBudget = false,
) {
  return prepareCall({
    surface: openAISurface,
    parsed: { route: 'cheap', request, stream: false, includeUsage: false },
    key: stored,
    config,
    idempotencyKey: undefined,
    deadlineMs: 60_000,
    keyPolicy: { requireBudget },
  });
}

function thrown(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('output ceiling', () => {
  test("the keys file keeps a key's ceiling", () => {
    expect(key({ maxOutputTokens: 300 }).maxOutputTokens).toBe(300);
    expect(() => key({ maxOutputTokens: 0 })).toThrow();
    expect(makeGatewayKey({ routes: ['*'], maxOutputTokens: 500 }).stored.maxOutputTokens).toBe(500);
    expect(makeGatewayKey({ routes: ['*'] }).stored).not.toHaveProperty('maxOutputTokens');
  });

  test('a request over the ceiling is a 400 naming max_tokens, not cut down', () => {
    const error = thrown(() => prepare(key({ maxOutputTokens: 300 }), { ...hello, maxOutputTokens: 301 }));
    expect(error.status).toBe(400);
    expect(error.context.param).toBe('max_tokens');
    expect(error.message).toBe("max_tokens: 301 is over this key's ceiling of 300 output tokens");
  });

  test('a request at or under it goes as asked; one naming no bound gets the lower of default and ceiling', () => {
    expect(
      prepare(key({ maxOutputTokens: 300 }), { ...hello, maxOutputTokens: 300 }).input.request
        .maxOutputTokens,
    ).toBe(300);
    expect(prepare(key({ maxOutputTokens: 300 }), hello).input.request.maxOutputTokens).toBe(300);
    expect(prepare(key({ maxOutputTokens: 50_000 }), hello).input.request.maxOutputTokens).toBe(1024);
    expect(prepare(key(), { ...hello, maxOutputTokens: 64_000 }).input.request.maxOutputTokens).toBe(64_000);
  });

  test("the caller's own field name is used", () => {
    expect(() =>
      applyKeyOutputCeiling(
        { ...hello, maxOutputTokens: 10 },
        { id: 'x', maxOutputTokens: 5 },
        'max_completion_tokens',
      ),
    ).toThrow('max_completion_tokens: 10 is over');
  });
});

describe('required budget scope', () => {
  test('read from SWITCHYARD_GATEWAY_REQUIRE_BUDGET; a value that is not a switch is refused', () => {
    expect(keyPolicyFromEnvironment({})).toEqual({ requireBudget: false });
    expect(keyPolicyFromEnvironment({ SWITCHYARD_GATEWAY_REQUIRE_BUDGET: 'true' })).toEqual({
      requireBudget: true,
    });
    expect(keyPolicyFromEnvironment({ SWITCHYARD_GATEWAY_REQUIRE_BUDGET: '0' })).toEqual({
      requireBudget: false,
    });
    expect(() => keyPolicyFromEnvironment({ SWITCHYARD_GATEWAY_REQUIRE_BUDGET: 'yes please' })).toThrow(
      new KeyPolicyError('SWITCHYARD_GATEWAY_REQUIRE_BUDGET must be 1, true, 0 or false, got "yes please"'),
    );
  });

  test('creating a key without --budget is refused only when required', () => {
    expect(keyCreationProblem({}, { requireBudget: false })).toBeUndefined();
    expect(keyCreationProblem({ budget: 'team-a' }, { requireBudget: true })).toBeUndefined();
    expect(keyCreationProblem({}, { requireBudget: true })).toContain('--budget is required');
  });

  test('a keys file with live unscoped keys is refused, naming every one; revoked ones do not count', () => {
    const keys = [
      { id: 'aaaaaaaaaaaa', budget: 'team-a' },
      { id: 'bbbbbbbbbbbb' },
      { id: 'cccccccccccc' },
      { id: 'dddddddddddd', revokedAt: '2026-01-02T00:00:00.000Z' },
    ];
    expect(() => checkKeysAgainstPolicy(keys, { requireBudget: false })).not.toThrow();
    expect(() => checkKeysAgainstPolicy(keys, { requireBudget: true })).toThrow(
      'SWITCHYARD_GATEWAY_REQUIRE_BUDGET is on and keys bbbbbbbbbbbb, cccccccccccc carry no budget scope',
    );
  });

  test('a request with an unscoped key is a 403 when required; a scoped key passes', () => {
    expect(keyRefusal(key(), { requireBudget: false })).toBeUndefined();
    const error = thrown(() => prepare(key(), hello, true));
    expect(error.status).toBe(403);
    expect(error.code).toBe('key_without_budget');
    expect(prepare(key({ budget: 'team-a' }), hello, true).input.budget).toBe('team-a');
  });
});
