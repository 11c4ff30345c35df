// Config validation: the example parses; every invalid field is named by its path.
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, parseConfig } from '../../../src/config/load-config';

const example = JSON.parse(
  readFileSync(path.join(__dirname, '../../../switchyard.config.example.json'), 'utf8'),
);

function configError(value: unknown): ConfigError {
  try {
    parseConfig(value);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

test('the example config in the repository is valid and gets defaults', () => {
  const config = parseConfig(example);
  expect(config.routes.support!.maxAttempts).toBe(10);
  expect(config.routes.support!.whenAllOpen).toBe('probe_first');
  expect(config.routes.support!.targets[1]).toMatchObject({ retries: 0 });
});

test('every problem is reported, each with its path', () => {
  const broken = structuredClone(example);
  broken.providers.openai.kind = 'openia';
  broken.providers.anthropic.apiKeyEnv = 'not a variable';
  broken.routes.support.targets[0].timeoutMs = -5;
  broken.routes.support.maxAttempts = 11;
  const error = configError(broken);
  const paths = error.issues.map((issue) => issue.path.join('.'));
  expect(paths).toEqual(
    expect.arrayContaining([
      'providers.openai.kind',
      'providers.anthropic.apiKeyEnv',
      'routes.support.targets.0.timeoutMs',
      'routes.support.maxAttempts',
    ]),
  );
  expect(error.message).toContain('providers.openai.kind');
  expect(error.message).toContain('routes.support.targets[0].timeoutMs');
});

test('targets must name configured providers and models', () => {
  const broken = structuredClone(example);
  broken.routes.support.targets.push(
    { provider: 'mistral', model: 'large' },
    { provider: 'openai', model: 'gpt-9' },
  );
  broken.defaultRoute = 'sales';
  const error = configError(broken);
  expect(error.message).toContain('unknown provider "mistral"');
  expect(error.message).toContain('routes.support.targets[2].provider');
  expect(error.message).toContain('provider "openai" has no model "gpt-9"');
  expect(error.message).toContain('routes.support.targets[3].model');
  expect(error.message).toContain('no route named "sales"');
});

test.each(['modèle-日本', 'gpt 4o', 'tab\tname', 'x'.repeat(201)])(
  'a model name a header cannot carry (%j) is refused at load, naming the field',
  (name) => {
    const broken = structuredClone(example);
    broken.providers.openai.models[name] = { inputUsdPerMillion: 1, outputUsdPerMillion: 1 };
    const error = configError(broken);
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual([`providers.openai.models.${name}`]);
    expect(error.message).toContain('model names are visible ASCII without spaces, 1-200 characters');
  },
);

test('model names as providers spell them (slashes, colons, @, dots) are accepted', () => {
  const config = structuredClone(example);
  for (const name of ['meta-llama/Llama-3.1-8B-Instruct:free', 'claude-3-5-sonnet@20240620', 'gpt-4.1'])
    config.providers.openai.models[name] = { inputUsdPerMillion: 1, outputUsdPerMillion: 1 };
  expect(() => parseConfig(config)).not.toThrow();
});

test('provider names a header cannot carry are refused, naming the field', () => {
  const broken = structuredClone(example);
  broken.providers['fournisseur-é'] = broken.providers.openai;
  expect(configError(broken).message).toContain('provider names are letters, digits, . _ -');
});

test('failoverOn may list only classes that can fail over', () => {
  const broken = structuredClone(example);
  broken.routes.support.failoverOn = ['rate_limited', 'refused'];
  expect(configError(broken).message).toContain('routes.support.failoverOn[1]');
});

test('loadConfig names the file when it is missing or not JSON', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-config-'));
  expect(() => loadConfig(path.join(directory, 'missing.json'))).toThrow(
    /Cannot read Switchyard config .*missing\.json: ENOENT/,
  );
  const file = path.join(directory, 'bad.json');
  writeFileSync(file, '{ "providers": ');
  expect(() => loadConfig(file)).toThrow(/bad\.json is not valid JSON/);
});

test.each([
  'file:///etc/passwd',
  'javascript:alert(1)',
  'ftp://example.com/v1',
  'data:text/plain,hi',
  'not a url',
])('a provider baseURL of %s is refused, naming the field', (baseURL) => {
  const broken = structuredClone(example);
  broken.providers.openai.baseURL = baseURL;
  const error = configError(broken);
  expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['providers.openai.baseURL']);
  expect(error.message).toContain('baseURL must be an http:// or https:// URL');
});

test('http and https base URLs are accepted, with ports and paths', () => {
  for (const baseURL of ['https://api.openai.com/v1', 'http://127.0.0.1:4010/v1', 'HTTPS://Example.com']) {
    const config = structuredClone(example);
    config.providers.openai.baseURL = baseURL;
    expect(parseConfig(config).providers.openai!.baseURL).toBe(baseURL);
  }
});
