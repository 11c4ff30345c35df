// Starts and stops the embedded Temporal dev server (`temporal server start-dev`). Node side.
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { SWITCHYARD_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { freePort } from './free-port';
import { ensureTemporalCli } from './temporal-cli';

export interface DevServerOptions {
  /** Address the server binds to. @default '127.0.0.1' */
  readonly ip?: string;
  /** Front-end gRPC port. @default a free port */
  readonly port?: number;
  /** Web UI port. @default a free port (ignored when `headless`) */
  readonly uiPort?: number;
  /** Run without the Web UI. @default false */
  readonly headless?: boolean;
  /** SQLite file that keeps workflows across restarts. @default in memory (lost when the server stops) */
  readonly dbFilename?: string;
  /** Namespace created at launch (the `default` namespace always exists). @default 'default' */
  readonly namespace?: string;
  /** Extra dynamic config values, `key → JSON value`. Merged over {@link DEFAULT_DYNAMIC_CONFIG}. */
  readonly dynamicConfig?: Readonly<Record<string, unknown>>;
  /** Server log level. @default 'error' */
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** How long to wait for the server to answer, in milliseconds. @default 60000 */
  readonly startupTimeoutMs?: number;
  /** Where server output goes. @default 'ignore' */
  readonly output?: 'ignore' | 'inherit';
  /**
   * Remote codec server the Web UI decodes payloads with (`--ui-codec-endpoint`), e.g. a `switchyard
   * codec-server` URL. Ignored when `headless`. @default none (encrypted payloads show as ciphertext)
   */
  readonly uiCodecEndpoint?: string;
}

export interface DevServer {
  /** `host:port` of the gRPC front end, for `TEMPORAL_ADDRESS`. */
  readonly address: string;
  readonly namespace: string;
  /** Web UI base URL, absent when headless. */
  readonly uiUrl: string | undefined;
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * How often, per second, each history shard's queue processors may read their queue: the server's default is
 * 20, which makes every task that goes through a queue (a workflow task's dispatch, a signal to another
 * workflow, a child's start, a timer, a visibility write) wait ~25 ms on average on a quiet server. Raised, the
 * processors read as soon as a task is written, at the cost of more queue reads under load (docs/operations.md,
 * "Search attributes and dynamic config").
 */
const QUEUE_POLL_RATE_CONFIG: Readonly<Record<string, unknown>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
  'history.outboundProcessorMaxPollRPS': 1000,
};

/**
 * Dynamic config the engine always applies: lets updates and eager start work as the design expects, hands an
 * attempt's activity back in the workflow-task response (eager activity dispatch: about 40 ms less per call on
 * a busy 2-core machine), lifts the queue processors' poll rate limits (see {@link QUEUE_POLL_RATE_CONFIG}) and
 * keeps short timers on time (see {@link TIMER_TIME_SHIFT_CONFIG}).
 */
/**
 * How far ahead the history service's timer queue reads (the server's default is 1 s). A timer set closer to now
 * than that is moved to its edge: an attempt's heartbeat timeout, re-armed from a heartbeat recorded milliseconds
 * after the attempt started (its sending mark), fired up to a second late, so a worker killed early in an attempt
 * was noticed up to 3 s after the kill with a 2 s heartbeat timeout (measured on the dev server with a plain
 * heartbeating activity too). 100 ms keeps such timers within about 100 ms of their time.
 */
const TIMER_TIME_SHIFT_CONFIG: Readonly<Record<string, unknown>> = {
  'history.timerProcessorMaxTimeShift': '100ms',
};

export const DEFAULT_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableExecuteMultiOperation': true,
  'system.enableEagerWorkflowStart': true,
  'system.enableActivityEagerExecution': true,
  'frontend.workerVersioningWorkflowAPIs': true,
  ...QUEUE_POLL_RATE_CONFIG,
  ...TIMER_TIME_SHIFT_CONFIG,
};

const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<string, string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `--search-attribute` values registering Switchyard's search attributes. */
export function searchAttributeFlags(): string[] {
  return SWITCHYARD_SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${SEARCH_ATTRIBUTE_TYPE_NAMES[key.type]}`,
  ]);
}

const running = new Set<ChildProcess>();
// A server must never outlive the process that started it, even when that process exits abruptly.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cli = ensureTemporalCli();
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? (await freePort(ip));
  const namespace = options.namespace ?? 'default';
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--log-level',
    options.logLevel ?? 'error',
  ];
  args.push('--metrics-port', String(await freePort(ip)), '--http-port', String(await freePort(ip)));
  let uiUrl: string | undefined;
  if (options.headless) {
    args.push('--headless');
  } else {
    const uiPort = options.uiPort ?? (await freePort(ip));
    args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
    if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
    uiUrl = `http://${ip}:${uiPort}`;
  }
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  if (namespace !== 'default') args.push('--namespace', namespace);
  args.push(...searchAttributeFlags());
  for (const [key, value] of Object.entries({ ...DEFAULT_DYNAMIC_CONFIG, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }

  const child = spawn(cli, args, {
    stdio: ['ignore', options.output ?? 'ignore', options.output ?? 'ignore'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  const address = `${ip}:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await waitUntilServing(address, namespace, options.startupTimeoutMs ?? 60_000, exited);
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, namespace, uiUrl, process: child, stop };
}

async function waitUntilServing(
  address: string,
  namespace: string,
  timeoutMs: number,
  exited: Promise<void>,
): Promise<void> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (hasExited)
      throw new Error(
        `temporal server start-dev exited during startup (address ${address}); run it by hand to see why.`,
      );
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(
    `Temporal dev server at ${address} did not answer within ${timeoutMs} ms: ${String(lastError)}`,
  );
}
