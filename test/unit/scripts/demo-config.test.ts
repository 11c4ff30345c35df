// The demo's config: valid with and without real keys; the real providers appear only with their key.
import { parseConfig } from '../../../src/config/load-config';
import { demoConfigInput, liveKeysFromEnvironment } from '../../../scripts/demo/demo-config';

const fake = { openaiBaseURL: 'http://127.0.0.1:4010/v1', anthropicBaseURL: 'http://127.0.0.1:4010' };

test('without keys every route runs on the fake provider and there is no live route', () => {
  const config = parseConfig(demoConfigInput(fake, liveKeysFromEnvironment({})));
  expect(Object.keys(config.providers).sort()).toEqual(['anthropic', 'openai']);
  expect(
    Object.values(config.providers).every((provider) =>
      provider.baseURL?.startsWith('http://127.0.0.1:4010'),
    ),
  ).toBe(true);
  expect(config.routes.live).toBeUndefined();
});

test('with keys the live route walks the real APIs, with keys from their usual variables', () => {
  const live = liveKeysFromEnvironment({ OPENAI_API_KEY: 'sk-…', ANTHROPIC_API_KEY: 'sk-ant-…' });
  const config = parseConfig(demoConfigInput(fake, live));
  expect(
    config.routes.live?.targets.map((target) =>
      'route' in target ? target.route : `${target.provider}/${target.model}`,
    ),
  ).toEqual(['openai-live/gpt-4o-mini', 'anthropic-live/claude-haiku-4-5']);
  expect(config.providers['openai-live']).toMatchObject({ kind: 'openai', apiKeyEnv: 'OPENAI_API_KEY' });
  expect(config.providers['anthropic-live']).toMatchObject({
    kind: 'anthropic',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
  });
  expect(config.providers['openai-live']?.baseURL).toBeUndefined();
  const onlyAnthropic = parseConfig(
    demoConfigInput(fake, liveKeysFromEnvironment({ ANTHROPIC_API_KEY: 'x' })),
  );
  expect(
    onlyAnthropic.routes.live?.targets.map((target) => ('route' in target ? target.route : target.provider)),
  ).toEqual(['anthropic-live']);
});
