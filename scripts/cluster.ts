// `npm run cluster`: the production shape on this machine — PostgreSQL, Temporal's four services as separate
// processes, two or more Switchyard worker processes and the gateway — until Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configPath, loadConfig } from '../src/config/load-config';
import { startLocalCluster, type LocalCluster } from '../src/engine/temporal-cluster';
import {
  clusterGatewayLines,
  clusterGatewayOrigin,
  startClusterGateway,
  type ClusterGateway,
} from './cluster-gateway';
import type { FakeProvider } from '../src/fake-provider';
import { demoConfigInput, FAKE_PROVIDER_KEYS, liveKeysFromEnvironment } from './demo/demo-config';
import { startFake } from './demo/demo-stack';
import { heading, say } from './demo/progress';

const USAGE = `Usage: npm run cluster [-- options]

Runs PostgreSQL (Debian's package, installed if missing), Temporal server with its frontend, history, matching
and worker services as separate processes (built from go.temporal.io/server once per machine, see
"npm run cluster:install"), the schema and search-attribute steps of docker-compose.yml, Switchyard worker
processes and the gateway ("switchyard serve", keys in .temporal/cluster/switchyard.keys.json), until Ctrl-C.
Every database is fresh and is removed at the end.

Options:
  --workers <n>        Switchyard worker processes (0: run your own)   default: 2
  --config <file>      their Switchyard config        default: SWITCHYARD_CONFIG, ./switchyard.config.json,
                       else the demo config on the fake provider
  --port <port>        Temporal front end (gRPC), below 32768          default: 7233
  --metrics-port <p>   first worker's metrics port; the next get p+1, … default: 9464
  --fake-port <port>   port of the fake provider (demo config only)    default: 4010
  --gateway-port <p>   the gateway's port on 127.0.0.1                 default: 4000
  --no-gateway         no gateway (it runs only beside workers)
  --log-dir <dir>      where the services' logs go (kept)              default: .temporal/cluster/logs
  -h, --help           this text`;

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new Error(`--${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  return number;
}

async function ensureFree(port: number, flag: string): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
  if (!free)
    throw new Error(`port ${port} is in use (is a stack already running?); choose another with ${flag}`);
}

/** Starts `src/worker.ts` as a deployment would, and resolves once it polls. */
function startWorker(
  environment: NodeJS.ProcessEnv,
  root: string,
  onSpawn: (child: ChildProcess) => void,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(root, 'src', 'worker.ts')], {
    cwd: root,
    env: environment,
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  onSpawn(child);
  return new Promise((resolve, reject) => {
    let printed = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      process.stderr.write(text);
      printed += text;
      if (printed.includes('switchyard worker polling')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`a worker process exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string' },
      config: { type: 'string' },
      port: { type: 'string' },
      'metrics-port': { type: 'string' },
      'fake-port': { type: 'string' },
      'gateway-port': { type: 'string' },
      'no-gateway': { type: 'boolean' },
      'log-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    say(USAGE);
    return;
  }
  const root = path.join(__dirname, '..');
  const workerCount = integer('workers', values.workers, 2, 0, 16);
  const frontendPort = integer('port', values.port, 7233, 1, 32_767);
  const metricsPort = integer('metrics-port', values['metrics-port'], 9464, 1, 65_535 - workerCount);
  const logDirectory = path.resolve(values['log-dir'] ?? path.join(root, '.temporal', 'cluster', 'logs'));
  const gatewayPort = integer('gateway-port', values['gateway-port'], 4000, 1, 65_535);
  const withGateway = workerCount > 0 && !values['no-gateway'];
  await ensureFree(frontendPort, '--port');
  if (withGateway) await ensureFree(gatewayPort, '--gateway-port');

  let cluster: LocalCluster | undefined;
  let fake: FakeProvider | undefined;
  const workers: ChildProcess[] = [];
  let gateway: ClusterGateway | undefined;
  const stop = async () => {
    // The gateway first: its open requests end before the workers serving them.
    await gateway?.process.stop();
    await Promise.all(
      workers.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await fake?.close();
    await cluster?.stop();
  };
  try {
    heading('Starting the cluster: PostgreSQL, schema, frontend, history, matching, worker');
    cluster = await startLocalCluster({
      frontendPort,
      logDirectory,
      log: (line) => say(`  ${line}`),
    });

    let configFile = configPath(values.config);
    let extraEnvironment: Record<string, string> = {};
    let configSource = configFile;
    if (workerCount > 0) {
      if (values.config !== undefined || process.env.SWITCHYARD_CONFIG || existsSync(configFile)) {
        loadConfig(configFile);
      } else {
        fake = await startFake({ port: integer('fake-port', values['fake-port'], 4010, 1, 65_535) });
        configFile = path.join(root, '.temporal', 'cluster', 'demo.config.json');
        mkdirSync(path.dirname(configFile), { recursive: true });
        writeFileSync(
          configFile,
          `${JSON.stringify(demoConfigInput(fake, liveKeysFromEnvironment()), null, 2)}\n`,
        );
        extraEnvironment = { ...FAKE_PROVIDER_KEYS };
        configSource = `the demo config on the fake provider at ${fake.url}, written to ${configFile}`;
      }
      heading(`Starting ${workerCount} Switchyard worker process${workerCount === 1 ? '' : 'es'}`);
      // Side by side: each process bundles the workflows, which takes seconds.
      await Promise.all(
        Array.from({ length: workerCount }, (_, index) =>
          startWorker(
            {
              ...process.env,
              ...extraEnvironment,
              TEMPORAL_ADDRESS: cluster!.address,
              TEMPORAL_NAMESPACE: cluster!.namespace,
              SWITCHYARD_CONFIG: configFile,
              SWITCHYARD_METRICS_PORT: String(metricsPort + index),
              // Streamed pieces go to this cluster's gateway only.
              ...(withGateway ? { SWITCHYARD_RELAY_ORIGINS: clusterGatewayOrigin(gatewayPort) } : {}),
            },
            root,
            (child) => workers.push(child),
          ),
        ),
      );
      if (withGateway) {
        heading(`Starting the gateway on 127.0.0.1:${gatewayPort}`);
        gateway = await startClusterGateway({
          stateDirectory: path.join(root, '.temporal', 'cluster'),
          configFile,
          temporalAddress: cluster.address,
          namespace: cluster.namespace,
          port: gatewayPort,
        });
      }
    }

    heading('Running — Ctrl-C stops everything');
    say(`  Temporal          ${cluster.address}   (export TEMPORAL_ADDRESS=${cluster.address})`);
    say(
      `  PostgreSQL        ${cluster.postgres.host}:${cluster.postgres.port} (user ${cluster.postgres.user})`,
    );
    for (const [service, child] of Object.entries(cluster.processes))
      say(`  ${service.padEnd(17)} pid ${child.pid}, log ${path.join(logDirectory, `${service}.log`)}`);
    if (workers.length > 0) {
      say(`  workers           pids ${workers.map((child) => child.pid).join(', ')}; config ${configSource}`);
      say(
        `\n  Try it: TEMPORAL_ADDRESS=${cluster.address} SWITCHYARD_CONFIG=${configFile} npx switchyard call "Hello"`,
      );
    }
    if (gateway)
      for (const line of clusterGatewayLines(gateway, loadConfig(configFile).defaultRoute)) say(line);
    say(`  Test it: SWITCHYARD_TEST_TEMPORAL_ADDRESS=${cluster.address} npm run test:cluster`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    say('\nStopping …');
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
