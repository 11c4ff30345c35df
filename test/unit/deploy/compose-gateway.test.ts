// The production stack's gateway, keys tool and OpenTelemetry collector in docker-compose.yml, read as data: what
// the gateway mounts and is told, what it shares with the workers, and the collector's config. No Docker needed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.join(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
}

const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const environment = (name: string): Record<string, string> => service(name).environment ?? {};

/** The value after `flag` in a service's command. */
function flagValue(command: readonly string[], flag: string): string | undefined {
  const index = command.indexOf(flag);
  return index < 0 ? undefined : command[index + 1];
}

/** A service's volume mounted at `target`: its source and whether it is read-only. */
function mountAt(name: string, target: string): { source: string; readOnly: boolean } | undefined {
  for (const volume of service(name).volumes ?? []) {
    // The source may hold colons of its own (`${SWITCHYARD_CONFIG_FILE:-…}`); target and mode end the entry.
    const [, source, mountedAt, mode] = /^(.+):(\/[^:]*)(?::(ro|rw))?$/.exec(volume) ?? [];
    if (mountedAt === target) return { source: source!, readOnly: mode === 'ro' };
  }
  return undefined;
}

test('the gateway runs `switchyard serve` from the worker image, on all interfaces, published on 127.0.0.1:4000', () => {
  const gateway = service('gateway');
  expect(gateway.image).toBe(service('worker').image);
  expect(gateway.build).toEqual(service('worker').build);
  const command = gateway.command!;
  expect(command.slice(0, 3)).toEqual(['node', 'bin/switchyard.js', 'serve']);
  expect(flagValue(command, '--host')).toBe('0.0.0.0');
  expect(flagValue(command, '--port')).toBe('4000');
  expect(gateway.ports).toEqual(['127.0.0.1:4000:4000']);
  expect(environment('gateway')).toMatchObject({
    TEMPORAL_ADDRESS: environment('worker').TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: environment('worker').TEMPORAL_NAMESPACE,
    SWITCHYARD_CONFIG: environment('worker').SWITCHYARD_CONFIG,
  });
  // The same routes as the workers: the same config file, read-only.
  expect(mountAt('gateway', '/app/switchyard.config.json')).toEqual(
    mountAt('worker', '/app/switchyard.config.json'),
  );
  expect(mountAt('gateway', '/app/switchyard.config.json')?.readOnly).toBe(true);
});

test('workers reach the relay at the gateway service by name, and push to no other origin', () => {
  const relayUrl = new URL(flagValue(service('gateway').command!, '--relay-url')!);
  expect(relayUrl.hostname).toBe('gateway');
  expect(relayUrl.port).toBe(flagValue(service('gateway').command!, '--port'));
  expect(environment('worker').SWITCHYARD_RELAY_ORIGINS).toBe(
    `\${SWITCHYARD_RELAY_ORIGINS:-${relayUrl.origin}}`,
  );
});

test('the gateway reads its keys file from a read-only mount; only the keys tool writes it', () => {
  const keysFile = environment('gateway').SWITCHYARD_GATEWAY_KEYS!;
  expect(path.posix.isAbsolute(keysFile)).toBe(true);
  // A folder, not the file: `keys create` writes the file whole by rename, which a one-file mount never sees.
  const folder = path.posix.dirname(keysFile);
  const gatewayMount = mountAt('gateway', folder);
  expect(gatewayMount).toEqual({ source: 'gateway-keys', readOnly: true });
  expect(compose.volumes).toHaveProperty('gateway-keys');

  const keys = service('keys');
  expect(keys.image).toBe(service('worker').image);
  expect(keys.entrypoint).toEqual(['node', 'bin/switchyard.js', 'keys']);
  expect(environment('keys').SWITCHYARD_GATEWAY_KEYS).toBe(keysFile);
  expect(mountAt('keys', folder)).toEqual({ source: 'gateway-keys', readOnly: false });
  // Routes of a new key are checked against the gateway's config.
  expect(mountAt('keys', '/app/switchyard.config.json')).toEqual(
    mountAt('gateway', '/app/switchyard.config.json'),
  );
  expect(environment('keys').SWITCHYARD_CONFIG).toBe(environment('gateway').SWITCHYARD_CONFIG);
  // Nothing else sees the keys.
  for (const name of Object.keys(compose.services).filter((name) => !['gateway', 'keys'].includes(name))) {
    expect([
      name,
      (service(name).volumes ?? []).some((volume) => volume.startsWith('gateway-keys:')),
    ]).toEqual([name, false]);
  }
});

test('workers and gateway share one payload store volume at the same path, and the same codec key', () => {
  const directory = environment('worker').SWITCHYARD_PAYLOAD_STORE_DIR!;
  expect(path.posix.isAbsolute(directory)).toBe(true);
  expect(environment('gateway').SWITCHYARD_PAYLOAD_STORE_DIR).toBe(directory);
  for (const name of ['worker', 'gateway']) {
    expect([name, mountAt(name, directory)]).toEqual([name, { source: 'payload-store', readOnly: false }]);
  }
  expect(compose.volumes).toHaveProperty('payload-store');
  expect(environment('worker').SWITCHYARD_CODEC_KEY).toBe('${SWITCHYARD_CODEC_KEY:-}');
  expect(environment('gateway').SWITCHYARD_CODEC_KEY).toBe('${SWITCHYARD_CODEC_KEY:-}');
});

test('the image creates the volumes’ mount points for its unprivileged user, so fresh volumes are writable', () => {
  const dockerfile = read('Dockerfile');
  const keysFolder = path.posix.dirname(environment('gateway').SWITCHYARD_GATEWAY_KEYS!);
  const storeFolder = environment('worker').SWITCHYARD_PAYLOAD_STORE_DIR!;
  const setup = /^RUN mkdir -p (.+) && chown -R node:node (\S+)$/m.exec(dockerfile);
  expect(setup?.[1]!.split(' ').sort()).toEqual([keysFolder, storeFolder].sort());
  for (const folder of [keysFolder, storeFolder]) expect(folder.startsWith(`${setup![2]}/`)).toBe(true);
  // Created before the image switches to that user.
  expect(dockerfile.indexOf(setup![0])).toBeLessThan(dockerfile.indexOf('USER node'));
});

const OTEL_PASSED_THROUGH = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_TRACES_EXPORTER',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'SWITCHYARD_TRACE_CONTENT',
];

test('worker and gateway get the OpenTelemetry settings from the shell, tracing off by default, distinct service names', () => {
  for (const name of ['worker', 'gateway']) {
    const settings = environment(name);
    for (const variable of OTEL_PASSED_THROUGH) {
      expect([name, settings[variable]]).toEqual([name, expect.stringMatching(`^\\$\\{${variable}:-`)]);
    }
    // Nothing turns tracing on unless the shell does: no exporter and no endpoint by default.
    expect(settings.OTEL_TRACES_EXPORTER).toBe('${OTEL_TRACES_EXPORTER:-}');
    expect(settings.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
    expect(settings.SWITCHYARD_TRACE_CONTENT).toBe('${SWITCHYARD_TRACE_CONTENT:-false}');
    const otel = Object.keys(settings).filter((key) => key.startsWith('OTEL_'));
    expect([name, otel.sort()]).toEqual([
      name,
      [...OTEL_PASSED_THROUGH.filter((key) => key.startsWith('OTEL_')), 'OTEL_SERVICE_NAME'].sort(),
    ]);
  }
  expect(environment('worker').OTEL_SERVICE_NAME).toMatch(/:-switchyard-worker\}$/);
  expect(environment('gateway').OTEL_SERVICE_NAME).toMatch(/:-switchyard-gateway\}$/);
});

test('the collector is the official contrib image at a pinned version, configured from deploy/otel-collector.yaml', () => {
  const collector = service('otel-collector');
  expect(collector.image).toMatch(/^otel\/opentelemetry-collector-contrib:\d+\.\d+\.\d+$/);
  const configFile = flagValue(collector.command ?? [], '--config') ?? collector.command?.[0]?.split('=')[1];
  expect(mountAt('otel-collector', configFile!)).toEqual({
    source: './deploy/otel-collector.yaml',
    readOnly: true,
  });

  const config = parse(read('deploy/otel-collector.yaml')) as {
    receivers: { otlp: { protocols: Record<string, { endpoint: string }> } };
    exporters: Record<string, unknown>;
    processors?: Record<string, unknown>;
    service: {
      pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }>;
    };
  };
  // Reachable from the other containers (the collector's own default is localhost only).
  expect(config.receivers.otlp.protocols).toEqual({
    grpc: { endpoint: '0.0.0.0:4317' },
    http: { endpoint: '0.0.0.0:4318' },
  });
  const traces = config.service.pipelines.traces!;
  expect(traces.receivers).toEqual(['otlp']);
  expect(traces.exporters).toContain('debug');
  for (const exporter of traces.exporters) expect(config.exporters).toHaveProperty(exporter);
  for (const processor of traces.processors ?? []) expect(config.processors).toHaveProperty(processor);
  // The commented example of a real backend ships with it.
  expect(read('deploy/otel-collector.yaml')).toMatch(/^ {2}# otlphttp\/\S+:$/m);
});
