// A Chat Completions call on the test config's `cheap` route, prepared as the gateway would with the given headers.
import { parseConfig } from '../../../src/config/load-config';
import { prepareCall } from '../../../src/gateway/call-input';
import type { StoredKey } from '../../../src/gateway/gateway-key';
import { openAISurface } from '../../../src/gateway/openai-surface';
import { TEST_CONFIG } from '../cli/cli-test-io';

const config = parseConfig(TEST_CONFIG);
const key: StoredKey = {
  id: '0123456789ab',
  sha256: '0'.repeat(64),
  routes: ['cheap'],
  createdAt: '2026-01-01T00:00:00.000Z',
};

export function prepareWithHeaders(headers: {
  readonly cacheHeader?: string;
  readonly preferHeader?: string;
  readonly requireHeader?: string;
}) {
  return prepareCall({
    surface: openAISurface,
    parsed: {
      route: 'cheap',
      request: { messages: [{ role: 'user', content: 'hello' }] },
      stream: false,
      includeUsage: false,
    },
    key,
    config,
    idempotencyKey: undefined,
    deadlineMs: 60_000,
    ...headers,
  });
}
