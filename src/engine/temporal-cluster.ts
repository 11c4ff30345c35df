// Runs the production shape locally: PostgreSQL, the schema steps, and the Temporal server's four services as
// separate processes, configured as docker-compose.yml configures the server image. Node side.
import { SwitchyardError } from '../config/branded-error';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { SWITCHYARD_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { freeLowPort } from './free-low-port';
import { startLocalPostgres, type LocalPostgres } from './postgres';
import { projectRoot } from './project-root';
import { ensureTemporalCli } from './temporal-cli';
import { ensureTemporalServer, type TemporalServerInstall } from './temporal-server';

/** The server's services, in the order the cluster starts them; each runs as its own process. */
export const TEMPORAL_SERVICES = ['history', 'matching', 'worker', 'frontend'] as const;
export type TemporalServiceName = (typeof TEMPORAL_SERVICES)[number];
const STOP_ORDER: readonly TemporalServiceName[] = ['worker', 'frontend', 'matching', 'history'];

/** The compose stack's files, shared with the local cluster so both run exactly the same steps and settings. */
export const DEPLOY_FILES = {
  dynamicConfig: 'deploy/temporal/dynamicconfig/production-sql.yaml',
  schemaScript: 'deploy/temporal/setup-postgres-schema.sh',
  searchAttributeScript: 'deploy/temporal/register-search-attributes.sh',
} as const;

/** The SQL plugin the compose stack's server uses (`DB`), and so the schema tool's `--plugin`. */
export const TEMPORAL_SQL_PLUGIN = 'postgres12';

export interface LocalClusterOptions {
  /** Namespace created and given Switchyard's search attributes. @default 'default' */
  readonly namespace?: string;
  /** The services' log level (`LOG_LEVEL` of the server image). @default 'warn' */
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /**
   * Folder the services' and PostgreSQL's logs are written to, one file each, kept after `stop()`.
   * @default a temporary folder, removed by `stop()`
   */
  readonly logDirectory?: string;
  /** Front-end gRPC port on 127.0.0.1. @default a free port */
  readonly frontendPort?: number;
  /** History shards (`NUM_HISTORY_SHARDS`). @default 4 (the server image's default) */
  readonly historyShards?: number;
  /** How long to wait for the whole cluster to serve, in milliseconds. @default 180000 */
  readonly startupTimeoutMs?: number;
  /** Progress lines. @default nothing */
  readonly log?: (line: string) => void;
}

export interface LocalCluster {
  /** `host:port` of the front end, for `TEMPORAL_ADDRESS`. */
  readonly address: string;
  readonly namespace: string;
  readonly postgres: LocalPostgres;
  readonly server: TemporalServerInstall;
  readonly logDirectory: string;
  /** The running process of each service (replaced by a restart). */
  readonly processes: Readonly<Record<TemporalServiceName, ChildProcess>>;
  /** Stops one service: `clean` is SIGTERM (SIGKILL after 20 s), `kill` is SIGKILL. */
  stopService(service: TemporalServiceName, how: 'clean' | 'kill'): Promise<void>;
  /** Starts a stopped service again, with the same settings, and waits until it listens. */
  startService(service: TemporalServiceName): Promise<void>;
  /** Stops every service, then PostgreSQL. Idempotent. */
  stop(): Promise<void>;
}

export class ClusterStartError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.ClusterStartError';

  override readonly name = 'ClusterStartError';
  constructor(
    message: string,
    readonly logDirectory: string,
  ) {
    super(`${message} (logs in ${logDirectory})`);
  }
}

interface ServicePorts {
  readonly grpc: number;
  readonly membership: number;
}

/**
 * The server image's environment for this cluster: the same variables docker-compose.yml gives the `temporal`
 * service, plus one port pair per service so that four processes can share one host.
 */
export function temporalServerEnvironment(settings: {
  readonly postgres: Pick<LocalPostgres, 'host' | 'port' | 'user' | 'password'>;
  readonly ports: Readonly<Record<TemporalServiceName, ServicePorts>>;
  readonly frontendHttpPort: number;
  readonly dynamicConfigFile: string;
  readonly historyShards: number;
  readonly logLevel: string;
}): Record<string, string> {
  const { ports } = settings;
  return {
    DB: TEMPORAL_SQL_PLUGIN,
    DB_PORT: String(settings.postgres.port),
    POSTGRES_USER: settings.postgres.user,
    POSTGRES_PWD: settings.postgres.password,
    POSTGRES_SEEDS: settings.postgres.host,
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: settings.dynamicConfigFile,
    NUM_HISTORY_SHARDS: String(settings.historyShards),
    LOG_LEVEL: settings.logLevel,
    FRONTEND_GRPC_PORT: String(ports.frontend.grpc),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontend.membership),
    FRONTEND_HTTP_PORT: String(settings.frontendHttpPort),
    HISTORY_GRPC_PORT: String(ports.history.grpc),
    HISTORY_MEMBERSHIP_PORT: String(ports.history.membership),
    MATCHING_GRPC_PORT: String(ports.matching.grpc),
    MATCHING_MEMBERSHIP_PORT: String(ports.matching.membership),
    WORKER_GRPC_PORT: String(ports.worker.grpc),
    WORKER_MEMBERSHIP_PORT: String(ports.worker.membership),
  };
}

const running = new Set<ChildProcess>();
// Servers must never outlive the process that started them, even when that process exits abruptly.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Without these, the server's environment would reach it from this process's own (a stray DB, ports, …). */
function baseEnvironment(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    if (process.env[key] !== undefined) environment[key] = process.env[key];
  }
  return environment;
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Runs a `deploy/temporal` script with `sh`, its output appended to `logFile`; throws with the log's tail. */
function runDeployScript(
  script: string,
  environment: NodeJS.ProcessEnv,
  logFile: string,
  logDirectory: string,
): void {
  const descriptor = openSync(logFile, 'a');
  try {
    const result = spawnSync('sh', [path.join(projectRoot(), script)], {
      env: environment,
      stdio: ['ignore', descriptor, descriptor],
      timeout: 300_000,
    });
    if (result.status !== 0) {
      throw new ClusterStartError(
        `${script} failed (status ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${tail(logFile)}`,
        logDirectory,
      );
    }
  } finally {
    closeSync(descriptor);
  }
}

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const finish = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/**
 * Starts PostgreSQL, creates and migrates Temporal's databases with the compose stack's schema script, starts
 * history, matching, worker and frontend as four `temporal-server start --service …` processes with the compose
 * stack's dynamic config, then creates the namespace and registers the search attributes with the compose stack's
 * setup script. Builds the server first if this machine has no build of it (minutes, once).
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const log = options.log ?? (() => undefined);
  const namespace = options.namespace ?? 'default';
  const deadline = Date.now() + (options.startupTimeoutMs ?? 180_000);
  const server = ensureTemporalServer({ log });
  const cli = ensureTemporalCli({ quiet: true });
  const ownLogs = options.logDirectory === undefined;
  const logDirectory = options.logDirectory ?? mkdtempSync(path.join(tmpdir(), 'switchyard-cluster-'));
  mkdirSync(logDirectory, { recursive: true });

  const startedAt = Date.now();
  const postgres = await startLocalPostgres();
  log(
    `PostgreSQL ${postgres.majorVersion} on ${postgres.host}:${postgres.port} (${Date.now() - startedAt} ms)`,
  );
  const processes = {} as Record<TemporalServiceName, ChildProcess>;
  const exits = new Map<TemporalServiceName, Promise<void>>();
  let stopped = false;

  const stopService = async (service: TemporalServiceName, how: 'clean' | 'kill'): Promise<void> => {
    const child = processes[service];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(how === 'clean' ? 'SIGTERM' : 'SIGKILL');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exits.get(service);
    clearTimeout(timer);
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    // The system worker first (it is a client of the front end), then the front end, so that no new work
    // arrives; history last, so that the others can hand theirs over.
    for (const service of STOP_ORDER) await stopService(service, 'clean');
    await postgres.stop();
    if (ownLogs) rmSync(logDirectory, { recursive: true, force: true });
  };

  try {
    const schemaEnvironment = {
      ...baseEnvironment(),
      PATH: `${path.dirname(server.sqlToolBinary)}${path.delimiter}${process.env.PATH ?? ''}`,
      POSTGRES_SEEDS: postgres.host,
      POSTGRES_USER: postgres.user,
      SQL_PASSWORD: postgres.password,
      DB_PORT: String(postgres.port),
      SCHEMA_ROOT: server.schemaDirectory,
    };
    const schemaStartedAt = Date.now();
    runDeployScript(
      DEPLOY_FILES.schemaScript,
      schemaEnvironment,
      path.join(logDirectory, 'schema.log'),
      logDirectory,
    );
    log(`schema set up (${Date.now() - schemaStartedAt} ms)`);

    // Every server port below 32768: see freeLowPort. The set keeps two services off one port.
    const taken = new Set<number>();
    const pick = async () => {
      const port = await freeLowPort('127.0.0.1', taken);
      taken.add(port);
      return port;
    };
    const ports = {} as Record<TemporalServiceName, ServicePorts>;
    for (const service of TEMPORAL_SERVICES) {
      ports[service] = {
        grpc: service === 'frontend' && options.frontendPort ? options.frontendPort : await pick(),
        membership: await pick(),
      };
    }
    const environment = {
      ...baseEnvironment(),
      ...temporalServerEnvironment({
        postgres,
        ports,
        frontendHttpPort: await pick(),
        dynamicConfigFile: path.join(projectRoot(), DEPLOY_FILES.dynamicConfig),
        historyShards: options.historyShards ?? 4,
        logLevel: options.logLevel ?? 'warn',
      }),
    };

    const startService = async (service: TemporalServiceName): Promise<void> => {
      if (stopped) throw new Error('the cluster was stopped');
      const logFile = path.join(logDirectory, `${service}.log`);
      const descriptor = openSync(logFile, 'a');
      const child = spawn(server.serverBinary, ['start', '--service', service], {
        cwd: logDirectory,
        env: environment,
        stdio: ['ignore', descriptor, descriptor],
      });
      closeSync(descriptor);
      running.add(child);
      processes[service] = child;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      void exited.then(() => running.delete(child));
      exits.set(service, exited);
      let hasExited = false;
      void exited.then(() => (hasExited = true));
      // The worker service serves no gRPC of its own; its membership port says it joined.
      const readyPort = service === 'worker' ? ports.worker.membership : ports[service].grpc;
      while (!(await listens(readyPort))) {
        if (hasExited)
          throw new ClusterStartError(`temporal-server ${service} exited:\n${tail(logFile)}`, logDirectory);
        if (Date.now() > deadline)
          throw new ClusterStartError(`temporal-server ${service} did not listen in time`, logDirectory);
        await delay(200);
      }
    };

    const servicesStartedAt = Date.now();
    // The first service to start writes the cluster's metadata record; others starting at the same moment on a
    // fresh database race it and exit ("failed to initialize current cluster metadata"). History goes first.
    const [first, ...others] = TEMPORAL_SERVICES;
    await startService(first);
    await Promise.all(others.map((service) => startService(service)));
    log(`services listening (${Date.now() - servicesStartedAt} ms)`);

    const address = `127.0.0.1:${ports.frontend.grpc}`;
    const setupStartedAt = Date.now();
    runDeployScript(
      DEPLOY_FILES.searchAttributeScript,
      {
        ...baseEnvironment(),
        PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH ?? ''}`,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
      },
      path.join(logDirectory, 'setup.log'),
      logDirectory,
    );
    await waitUntilSearchAttributesServe(address, namespace, deadline, logDirectory);
    log(`namespace ${namespace} and search attributes ready (${Date.now() - setupStartedAt} ms)`);

    return {
      address,
      namespace,
      postgres,
      server,
      logDirectory,
      processes,
      stopService,
      startService,
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/**
 * A search attribute registered through one front end reaches the namespace caches a moment later; a routed
 * call started before then is refused. Waits until a visibility query naming every one of them is accepted.
 */
async function waitUntilSearchAttributesServe(
  address: string,
  namespace: string,
  deadline: number,
  logDirectory: string,
): Promise<void> {
  const query = SWITCHYARD_SEARCH_ATTRIBUTES.map((key) => `${key.name} IS NOT NULL`).join(' AND ');
  const connection = await Connection.connect({ address });
  let lastError: unknown;
  try {
    while (Date.now() < deadline) {
      try {
        await connection.workflowService.countWorkflowExecutions({ namespace, query });
        return;
      } catch (error) {
        lastError = error;
        await delay(500);
      }
    }
  } finally {
    await connection.close();
  }
  throw new ClusterStartError(
    `the search attributes did not serve in time: ${String(lastError)}`,
    logDirectory,
  );
}
