// The bench's worker processes, driven over Node IPC by bench/run.ts. Role `driver`: a Switchyard worker, the
// bare worker and the load driver, all on one connection (so eager start can work). Role `worker`: a plain
// Switchyard worker, nothing else, whose memory is the worker's own. Started through bench/launch.cjs.
import inspector from 'node:inspector';
import { promisify } from 'node:util';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type ActivityInterceptorsFactory,
} from '@temporalio/worker';
import { SwitchyardClient, type Config } from 'switchyard';
import { createLedgerBatcher } from 'switchyard/testing';
import {
  createProviderRegistry,
  createSwitchyardWorker,
  entityTaskQueue,
  type ProviderRegistry,
  type SwitchyardWorker,
} from 'switchyard/worker';
import { bareCaller } from './bare';
import { BARE_TASK_QUEUE, createBareActivities } from './bare-activities';
import { BENCH_KEYS, benchConfig, ROUTED_BUDGET_SCOPE, type FakeBaseUrls } from './bench-config';
import { directCaller } from './direct';
import { createLitellmClient, litellmCaller } from './litellm';
import { runLedgerCallers } from './ledger-callers';
import { closedLoop, sequential, type Call } from './load';
import {
  WORKER_ENVIRONMENT,
  type ActivityTimings,
  type CallSpec,
  type Command,
  type MemoryResult,
  type Reply,
  type Request,
  type ThreadHeap,
  type WorkerRole,
  type WorkerSettings,
} from './protocol';
import { answeredCaller, routedCaller } from './routed';

/** Most timings kept per activity type between resets. */
const MAX_TIMINGS = 50_000;
const DEFAULT_SEQUENTIAL_MAX_MS = 60_000;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

interface Context {
  readonly settings: WorkerSettings;
  readonly config: Config;
  readonly providers: ProviderRegistry;
  readonly connection: NativeConnection;
  readonly taskQueue: string;
  readonly bundles: { readonly switchyard: string; readonly bare: string };
}

/** What a role runs and how it answers commands. */
interface Role {
  readonly workers: readonly Pick<SwitchyardWorker, 'runUntil'>[];
  run(command: Command): Promise<unknown>;
}

/** The V8 heap of each worker thread (the SDK's workflow threads), asked through the inspector, in thread order. */
async function threadHeaps(): Promise<ThreadHeap[]> {
  const session = new inspector.Session();
  session.connect();
  const post = promisify(session.post.bind(session)) as (method: string, params?: object) => Promise<unknown>;
  const attached: { sessionId: string; threadId: number }[] = [];
  const answers = new Map<string, (message: { result: { usedSize: number; totalSize: number } }) => void>();
  session.on('NodeWorker.attachedToWorker', ({ params }) =>
    attached.push({ sessionId: params.sessionId, threadId: Number(params.workerInfo.workerId) }),
  );
  session.on('NodeWorker.receivedMessageFromWorker', ({ params }) =>
    answers.get(params.sessionId)?.(JSON.parse(params.message)),
  );
  const ask = async (sessionId: string, method: string) => {
    const answer = new Promise<{ result: { usedSize: number; totalSize: number } }>((resolve) =>
      answers.set(sessionId, resolve),
    );
    await post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id: 1, method }) });
    return (await answer).result;
  };
  try {
    await post('NodeWorker.enable', { waitForDebuggerOnStart: false });
    attached.sort((a, b) => a.threadId - b.threadId);
    const heaps: ThreadHeap[] = [];
    for (const { sessionId } of attached) {
      const before = await ask(sessionId, 'Runtime.getHeapUsage');
      await ask(sessionId, 'HeapProfiler.collectGarbage');
      const after = await ask(sessionId, 'Runtime.getHeapUsage');
      heaps.push({ totalBytes: before.totalSize, usedBytes: before.usedSize, liveBytes: after.usedSize });
    }
    return heaps;
  } finally {
    session.disconnect();
  }
}

async function memory(withThreadHeaps = false): Promise<MemoryResult> {
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
    ...(withThreadHeaps ? { threadHeaps: await threadHeaps() } : {}),
  };
}

async function plainWorker(context: Context): Promise<Role> {
  const worker = await createSwitchyardWorker({
    config: context.config,
    connection: context.connection,
    taskQueue: context.taskQueue,
    providers: context.providers,
    workflowBundle: { codePath: context.bundles.switchyard },
    workerOptions: context.settings.workerOptions,
    ...(context.settings.entityWorkerOptions
      ? { entityWorkerOptions: context.settings.entityWorkerOptions }
      : {}),
  });
  return {
    workers: [worker],
    run: async (command) => {
      if (command.kind === 'memory') return memory(command.threadHeaps);
      if (command.kind === 'stop') return undefined;
      throw new Error(`a plain worker process does not run "${command.kind}"`);
    },
  };
}

async function driver(context: Context): Promise<Role> {
  const { config, connection, providers, settings, taskQueue } = context;
  // Where the milliseconds go inside the worker: every activity's execution time, local ones included.
  let timings: ActivityTimings = {};
  const timingInterceptor: ActivityInterceptorsFactory = (activityContext) => ({
    inbound: {
      execute: async (input, next) => {
        const began = performance.now();
        try {
          return await next(input);
        } finally {
          const { isLocal, activityType } = activityContext.info;
          const list = (timings[`${isLocal ? 'local ' : ''}${activityType}`] ??= []);
          if (list.length < MAX_TIMINGS) list.push(performance.now() - began);
        }
      },
    },
  });
  const workerOptions = { ...settings.workerOptions, interceptors: { activity: [timingInterceptor] } };
  const switchyardWorker = await createSwitchyardWorker({
    config,
    connection,
    taskQueue,
    providers,
    workflowBundle: { codePath: context.bundles.switchyard },
    workerOptions,
  });
  // A client without eager start, for calls served by another process's worker (not on this connection); the
  // bare activities are given it too, and never use it.
  const remoteClient = new Client({ connection });
  const bareWorker = await Worker.create({
    connection,
    taskQueue: BARE_TASK_QUEUE,
    workflowBundle: { codePath: context.bundles.bare },
    activities: createBareActivities({ config, client: remoteClient, providers }),
    ...workerOptions,
  });

  // Eager start needs the client on the worker's own NativeConnection; SwitchyardClient has no option for
  // it, so an interceptor asks for it on every start and counts how many the server granted.
  let eagerStarts = 0;
  const eager: WorkflowClientInterceptor = {
    startWithDetails: async (input, next) => {
      const output = await next({ ...input, options: { ...input.options, requestEagerStart: true } });
      if (output.eagerlyStarted) eagerStarts += 1;
      return output;
    },
  };
  const client = new Client({ connection, interceptors: { workflow: settings.eagerStart ? [eager] : [] } });
  const switchyards = new Map<string, SwitchyardClient>([
    [taskQueue, new SwitchyardClient({ client, taskQueue, config })],
  ]);
  const switchyardFor = (queue: string) => {
    if (!switchyards.has(queue))
      switchyards.set(queue, new SwitchyardClient({ client: remoteClient, taskQueue: queue, config }));
    return switchyards.get(queue)!;
  };
  // A second reserve path, built exactly as the worker builds its own (one batcher per worker).
  const ledgerBatcher = createLedgerBatcher(client, entityTaskQueue(taskQueue), config);

  // One client per proxy for the process's life, as the direct lane keeps its provider's: warm connections.
  const peerClients = new Map<string, ReturnType<typeof createLitellmClient>>();
  const peerCaller = (spec: CallSpec): Call => {
    if (!spec.peer) throw new Error('a litellm call needs the proxy (CallSpec.peer)');
    const key = `${spec.peer.baseURL} ${spec.peer.apiKey}`;
    if (!peerClients.has(key)) peerClients.set(key, createLitellmClient(spec.peer));
    const call = litellmCaller(peerClients.get(key)!, spec.mode);
    return async () => {
      await call();
      return undefined;
    };
  };

  const caller = (spec: CallSpec): Call => {
    switch (spec.variant) {
      case 'direct':
        return directCaller(providers, spec.mode);
      case 'bare':
        return bareCaller(client, config, spec.mode);
      case 'routed':
        return routedCaller(switchyardFor(spec.taskQueue ?? taskQueue), spec.mode, spec.route);
      case 'answered':
        return answeredCaller(switchyardFor(spec.taskQueue ?? taskQueue), spec.mode, spec.route);
      case 'budgeted':
        return routedCaller(
          switchyardFor(spec.taskQueue ?? taskQueue),
          spec.mode,
          spec.route,
          spec.budget ?? ROUTED_BUDGET_SCOPE,
        );
      case 'litellm':
        return peerCaller(spec);
    }
  };

  return {
    workers: [switchyardWorker, bareWorker],
    run: async (command) => {
      switch (command.kind) {
        case 'sequential': {
          const before = eagerStarts;
          const maxDurationMs = command.maxDurationMs ?? DEFAULT_SEQUENTIAL_MAX_MS;
          const result = await sequential(caller(command.call), command.count, maxDurationMs);
          return { ...result, eagerStarts: eagerStarts - before };
        }
        case 'closedLoop':
          return closedLoop(caller(command.call), command.concurrency, command.durationMs);
        case 'ledger':
          return runLedgerCallers(ledgerBatcher, command);
        case 'activityTimings': {
          const current = timings;
          if (command.reset) timings = {};
          return current;
        }
        case 'memory':
          return memory(command.threadHeaps);
        case 'stop':
          return undefined;
      }
    },
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const settings = JSON.parse(required(WORKER_ENVIRONMENT.settings)) as WorkerSettings;
  const config = benchConfig(JSON.parse(required(WORKER_ENVIRONMENT.fakeUrls)) as FakeBaseUrls);
  const context: Context = {
    settings,
    config,
    providers: createProviderRegistry(config, { ...BENCH_KEYS }),
    connection: await NativeConnection.connect({ address: required(WORKER_ENVIRONMENT.address) }),
    taskQueue: required(WORKER_ENVIRONMENT.taskQueue),
    bundles: JSON.parse(required(WORKER_ENVIRONMENT.bundles)) as Context['bundles'],
  };
  const role = (process.env[WORKER_ENVIRONMENT.role] ?? 'driver') as WorkerRole;
  const { workers, run } = role === 'worker' ? await plainWorker(context) : await driver(context);

  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on('message', (message: Request) => {
    run(message.command).then(
      (value) => process.send!({ id: message.id, ok: true, value } satisfies Reply),
      (error: unknown) =>
        process.send!({
          id: message.id,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies Reply),
    );
    if (message.command.kind === 'stop') stop();
  });
  // The orchestrator going away must not leave this process behind.
  process.on('disconnect', () => stop());

  const running = Promise.all(workers.map((worker) => worker.runUntil(stopped)));
  process.send!({ id: 0, ok: true, value: 'ready' } satisfies Reply);
  await running;
  await context.connection.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
