// The production stack's docker-compose.yml, read as data: services, ports, dependencies, health checks, the
// demo profile, the files it mounts. No Docker engine is needed; `docker compose config` runs when present.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseConfig } from '../../../src/config/load-config';
import { DEFAULT_DYNAMIC_CONFIG, searchAttributeFlags } from '../../../src/engine/dev-server';

const root = path.join(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  profiles?: string[];
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  command?: string[];
}

const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const service = (name: string): Service => {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};

/** The container port each published port maps to, by host port. */
function published(name: string): string[] {
  return (service(name).ports ?? []).map((port) => {
    const parts = port.split(':');
    expect(parts[0]).toBe('127.0.0.1');
    return parts[parts.length - 1]!;
  });
}

test('the stack has PostgreSQL, schema setup, Temporal, search-attribute setup, the Web UI, the worker, the gateway and the optional services', () => {
  expect(Object.keys(services).sort()).toEqual(
    [
      'fake-provider',
      'gateway',
      'keys',
      'otel-collector',
      'postgresql',
      'temporal',
      'temporal-schema',
      'temporal-setup',
      'temporal-ui',
      'worker',
    ].sort(),
  );
  expect(service('postgresql').image).toMatch(/^postgres:\d+/);
  expect(service('temporal').image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
  expect(service('temporal-schema').image).toMatch(/^temporalio\/admin-tools:/);
  expect(service('temporal-setup').image).toMatch(/^temporalio\/admin-tools:/);
  expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
  // Schema tools and server come from the same release.
  expect(service('temporal-schema').image!.split(':')[1]).toBe(service('temporal').image!.split(':')[1]);
  expect(compose.volumes).toHaveProperty('postgresql-data');
});

test('services start in order: database, schema, server, namespace and search attributes, then UI, worker and gateway', () => {
  expect(service('temporal-schema').depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
  expect(service('temporal').depends_on).toEqual({
    'temporal-schema': { condition: 'service_completed_successfully' },
  });
  expect(service('temporal-setup').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
  expect(service('temporal-ui').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
  expect(service('worker').depends_on).toEqual({
    'temporal-setup': { condition: 'service_completed_successfully' },
    'fake-provider': { condition: 'service_healthy', required: false },
    'otel-collector': { condition: 'service_started', required: false },
  });
  expect(service('gateway').depends_on).toEqual({
    'temporal-setup': { condition: 'service_completed_successfully' },
    'otel-collector': { condition: 'service_started', required: false },
  });
});

test('ports: Temporal 7233, the Web UI 8080, worker metrics 9464, the gateway 4000, the fake provider 4010, OTLP 4317 and 4318, all on 127.0.0.1', () => {
  expect(published('temporal')).toEqual(['7233']);
  expect(published('temporal-ui')).toEqual(['8080']);
  expect(published('worker')).toEqual(['9464']);
  expect(published('gateway')).toEqual(['4000']);
  expect(published('fake-provider')).toEqual(['4010']);
  expect(published('otel-collector')).toEqual(['4317', '4318']);
  expect(published('keys')).toEqual([]);
  expect(service('worker').environment).toMatchObject({
    TEMPORAL_ADDRESS: 'temporal:7233',
    SWITCHYARD_METRICS_HOST: '0.0.0.0',
    SWITCHYARD_METRICS_PORT: '9464',
  });
  expect(service('temporal-ui').environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
});

test('long-running services have health checks; the one-shot setups do not need them', () => {
  for (const name of ['postgresql', 'temporal', 'worker', 'gateway', 'fake-provider']) {
    expect(service(name).healthcheck?.test.length).toBeGreaterThan(0);
  }
  expect(service('worker').healthcheck!.test.join(' ')).toContain('127.0.0.1:9464/metrics');
  expect(service('gateway').healthcheck!.test.join(' ')).toContain('127.0.0.1:4000/healthz');
  // The collector's image has no shell or HTTP client to run a check with; nothing waits for it to be healthy.
  expect(service('otel-collector').healthcheck).toBeUndefined();
});

test('the fake provider is in the demo profile only, built from the worker image', () => {
  const profiles: Record<string, string[]> = {
    'fake-provider': ['demo'],
    keys: ['keys'],
    'otel-collector': ['tracing'],
  };
  for (const [name, definition] of Object.entries(services)) {
    expect([name, definition.profiles]).toEqual([name, profiles[name]]);
  }
  expect(service('fake-provider').image).toBe(service('worker').image);
  expect(service('fake-provider').command).toEqual(
    expect.arrayContaining(['dist/src/fake-provider/cli.js', '--host', '0.0.0.0', '--port', '4010']),
  );
  const demo = parseConfig(JSON.parse(read('deploy/switchyard.demo.config.json')));
  expect(Object.values(demo.providers).map((provider) => provider.baseURL)).toEqual([
    'http://fake-provider:4010/v1',
    'http://fake-provider:4010',
  ]);
  // The worker holds the keys the demo config names.
  for (const provider of Object.values(demo.providers)) {
    expect(service('worker').environment).toHaveProperty(provider.apiKeyEnv);
  }
});

test('every file the stack mounts from this repository exists, every named volume is declared', () => {
  const mounted = Object.values(services).flatMap((definition) =>
    (definition.volumes ?? []).map((volume) => volume.split(':')[0]!),
  );
  expect(mounted.length).toBeGreaterThan(0);
  for (const source of mounted) {
    // `${SWITCHYARD_CONFIG_FILE:-./switchyard.config.json}` is the user's file; its example ships.
    if (source.startsWith('${')) {
      expect(source).toBe('${SWITCHYARD_CONFIG_FILE');
      continue;
    }
    // Named volumes (the database, the payload store, the gateway keys) are declared at the top level.
    if (!source.startsWith('./')) {
      expect(compose.volumes).toHaveProperty(source);
      continue;
    }
    expect([source, existsSync(path.join(root, source))]).toEqual([source, true]);
  }
  const scripts = ['temporal-schema', 'temporal-setup'].map((name) => service(name).command![0]!);
  expect(scripts).toEqual([
    '/switchyard/setup-postgres-schema.sh',
    '/switchyard/register-search-attributes.sh',
  ]);
  expect(existsSync(path.join(root, 'deploy/temporal/dynamicconfig/production-sql.yaml'))).toBe(true);
});

test('the production server gets every dynamic setting the embedded engine runs with', () => {
  const production = parse(read('deploy/temporal/dynamicconfig/production-sql.yaml')) as Record<
    string,
    { value: unknown }[]
  >;
  for (const [key, value] of Object.entries(DEFAULT_DYNAMIC_CONFIG)) {
    expect([key, production[key]]).toEqual([key, [{ value }]]);
  }
});

test('the setup registers exactly Switchyard search attributes, with the types the dev server uses', () => {
  const expected = searchAttributeFlags()
    .filter((flag) => flag !== '--search-attribute')
    .map((pair) => pair.split('='));
  const script = read('deploy/temporal/register-search-attributes.sh');
  const registered = [...script.matchAll(/^register (\w+) (\w+)$/gm)].map((match) => [match[1], match[2]]);
  expect(registered).toEqual(expected);
  // docs/operations.md gives the same registration for a cluster of your own.
  const operations = read('docs/operations.md');
  for (const [name, type] of expected) {
    expect(operations).toContain(`--name ${name} --type ${type}`);
  }
});

test('the worker image is a multi-stage build that runs the compiled worker', () => {
  const dockerfile = read('Dockerfile');
  expect(service('worker').build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
  expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
  expect(dockerfile).toMatch(/^FROM .+ AS build$/m);
  expect(dockerfile).toContain('COPY --from=build /app/dist ./dist');
  expect(dockerfile).toContain('CMD ["node", "dist/src/worker.js"]');
  expect(dockerfile).toContain('EXPOSE 9464');
});

const composePlugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0;
const withCompose = composePlugin ? test : test.skip;

withCompose('docker compose config accepts the file, with and without each profile', () => {
  for (const profile of [[], ['--profile', 'demo'], ['--profile', 'tracing'], ['--profile', 'keys']]) {
    const result = spawnSync('docker', ['compose', ...profile, 'config', '--quiet'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, SWITCHYARD_CONFIG_FILE: './deploy/switchyard.demo.config.json' },
    });
    expect([profile, result.status, result.stderr]).toEqual([profile, 0, '']);
  }
});
