// The compose stack and the local cluster the cluster suite runs on are the same engine: the server release,
// the PostgreSQL major version, the server's settings, the dynamic config and the schema and setup scripts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { findPostgres } from '../../../src/engine/postgres';
import {
  DEPLOY_FILES,
  TEMPORAL_SQL_PLUGIN,
  temporalServerEnvironment,
} from '../../../src/engine/temporal-cluster';
import { TEMPORAL_SERVER_VERSION, temporalServerCacheDirectory } from '../../../src/engine/temporal-server';
import { freeLowPort, HIGHEST_SMALLINT_PORT } from '../../../src/engine/free-low-port';

const root = path.join(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
interface Service {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  command?: string[];
}
const services = (parse(read('docker-compose.yml')) as { services: Record<string, Service> }).services;

/** The environment the local cluster gives each service, with placeholder addresses. */
const localEnvironment = temporalServerEnvironment({
  postgres: { host: '127.0.0.1', port: 5432, user: 'temporal', password: 'temporal' },
  ports: {
    frontend: { grpc: 7233, membership: 6933 },
    history: { grpc: 7234, membership: 6934 },
    matching: { grpc: 7235, membership: 6935 },
    worker: { grpc: 7239, membership: 6939 },
  },
  frontendHttpPort: 7243,
  dynamicConfigFile: path.join(root, DEPLOY_FILES.dynamicConfig),
  historyShards: 4,
  logLevel: 'warn',
});

test('compose runs the Temporal release the cluster suite builds from go.temporal.io/server', () => {
  for (const name of ['temporal', 'temporal-schema', 'temporal-setup']) {
    expect([name, services[name]!.image!.split(':')[1]]).toEqual([name, TEMPORAL_SERVER_VERSION]);
  }
  expect(temporalServerCacheDirectory()).toContain(
    `${TEMPORAL_SERVER_VERSION}-${process.platform}-${process.arch}`,
  );
});

test('compose runs the PostgreSQL major version of Debian’s package, which the cluster suite runs on', () => {
  const major = Number(/^postgres:(\d+)/.exec(services.postgresql!.image!)?.[1]);
  expect(major).toBe(15);
  // Where PostgreSQL is installed here, it is that version (CI installs Debian's package).
  const installed = findPostgres();
  if (installed) expect(installed.majorVersion).toBe(major);
});

test('the compose server gets the settings the local services get, with the same plugin and dynamic config', () => {
  const compose = services.temporal!.environment!;
  for (const key of Object.keys(compose)) expect([key, key in localEnvironment]).toEqual([key, true]);
  expect(compose.DB).toBe(TEMPORAL_SQL_PLUGIN);
  expect(localEnvironment.DB).toBe(TEMPORAL_SQL_PLUGIN);
  // Compose mounts deploy/temporal/dynamicconfig and names the same file in it.
  expect(path.basename(compose.DYNAMIC_CONFIG_FILE_PATH!)).toBe(path.basename(DEPLOY_FILES.dynamicConfig));
  expect(services.temporal!.volumes).toContain(
    `./${path.dirname(DEPLOY_FILES.dynamicConfig)}:/etc/temporal/config/dynamicconfig:ro`,
  );
});

test('compose and the local cluster run the same schema and search-attribute scripts', () => {
  expect(services['temporal-schema']!.command).toEqual([
    `/switchyard/${path.basename(DEPLOY_FILES.schemaScript)}`,
  ]);
  expect(services['temporal-setup']!.command).toEqual([
    `/switchyard/${path.basename(DEPLOY_FILES.searchAttributeScript)}`,
  ]);
  expect(services['temporal-schema']!.volumes).toContain('./deploy/temporal:/switchyard:ro');
  expect(read(DEPLOY_FILES.schemaScript)).toContain(`--plugin ${TEMPORAL_SQL_PLUGIN}`);
});

test('server ports fit the SMALLINT column Temporal keeps membership ports in', async () => {
  const taken = new Set<number>();
  for (let index = 0; index < 20; index += 1) {
    const port = await freeLowPort('127.0.0.1', taken);
    expect(port).toBeLessThanOrEqual(HIGHEST_SMALLINT_PORT);
    expect(taken.has(port)).toBe(false);
    taken.add(port);
  }
});
