// The orchestrator's side of the worker process: fork it, send commands, sample its memory. Bench side.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeBaseUrls } from './bench-config';
import {
  WORKER_ENVIRONMENT,
  type ActivityTimings,
  type ClosedLoopResult,
  type Command,
  type LedgerResult,
  type MemoryResult,
  type Reply,
  type SequentialResult,
  type WorkerRole,
  type WorkerSettings,
} from './protocol';

export interface WorkerLinkOptions {
  readonly address: string;
  readonly fakeUrls: FakeBaseUrls;
  readonly settings: WorkerSettings;
  readonly taskQueue: string;
  /** @default 'driver' */
  readonly role?: WorkerRole;
  /** Paths of the prebuilt workflow bundles. */
  readonly bundles: { readonly switchyard: string; readonly bare: string };
  /** How long the worker may take to bundle and start polling, in milliseconds. @default 120000 */
  readonly startupTimeoutMs?: number;
  /**
   * Run {@link COMPILED_WORKER_ENTRY} (the package compiled, as deployed) instead of worker-process.ts through tsx.
   * @default false
   */
  readonly compiled?: boolean;
}

/**
 * The worker process compiled by bench/tsconfig.worker.json: it loads the package from dist/src through
 * package.json "exports" (tsx maps `switchyard/*` to src/ with tsconfig.json "paths"), and no tsx.
 */
export const COMPILED_WORKER_ENTRY = path.join(__dirname, '..', 'dist', 'bench', 'worker-process.js');

/** Resident set size of a process from /proc (Linux), in bytes; `undefined` elsewhere. */
export function procRssBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export class WorkerLink {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private exited = false;

  private constructor(readonly child: ChildProcess) {
    child.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(`worker process: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      this.exited = true;
      for (const waiter of this.pending.values())
        waiter.reject(new Error(`worker process exited (code ${code}, signal ${signal})`));
      this.pending.clear();
    });
  }

  static async start(options: WorkerLinkOptions): Promise<WorkerLink> {
    const [entry, args] = options.compiled
      ? [COMPILED_WORKER_ENTRY, []]
      : [path.join(__dirname, 'launch.cjs'), [path.join(__dirname, 'worker-process.ts')]];
    const child = fork(entry, args, {
      // BENCH_WORKER_NODE_FLAGS adds Node flags to the worker process, e.g. `--cpu-prof` to profile it.
      execArgv: process.env.BENCH_WORKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [],
      env: {
        ...process.env,
        [WORKER_ENVIRONMENT.address]: options.address,
        [WORKER_ENVIRONMENT.fakeUrls]: JSON.stringify(options.fakeUrls),
        [WORKER_ENVIRONMENT.settings]: JSON.stringify(options.settings),
        [WORKER_ENVIRONMENT.taskQueue]: options.taskQueue,
        [WORKER_ENVIRONMENT.role]: options.role ?? 'driver',
        [WORKER_ENVIRONMENT.bundles]: JSON.stringify({
          switchyard: options.bundles.switchyard,
          bare: options.bundles.bare,
        }),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const link = new WorkerLink(child);
    const ready = new Promise<void>((resolve, reject) => {
      link.pending.set(0, { resolve: () => resolve(), reject });
    });
    const timeoutMs = options.startupTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`worker process not ready after ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([ready, timeout]);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return link;
  }

  get pid(): number {
    return this.child.pid!;
  }

  send(command: Extract<Command, { kind: 'sequential' }>): Promise<SequentialResult>;
  send(command: Extract<Command, { kind: 'closedLoop' }>): Promise<ClosedLoopResult>;
  send(command: Extract<Command, { kind: 'ledger' }>): Promise<LedgerResult>;
  send(command: Extract<Command, { kind: 'activityTimings' }>): Promise<ActivityTimings>;
  send(command: Extract<Command, { kind: 'memory' }>): Promise<MemoryResult>;
  send(command: Command): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error('worker process has exited'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ id, command });
    });
  }

  /** The process's RSS in bytes: /proc where there is one, else what the process reports. */
  async rssBytes(): Promise<number> {
    return procRssBytes(this.pid) ?? (await this.send({ kind: 'memory' })).rssBytes;
  }

  /** Asks the worker to shut down; kills it if it has not exited within 15 s. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    const id = this.nextId++;
    this.child.send({ id, command: { kind: 'stop' } });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Samples a process's RSS every `intervalMs` while `work` runs; returns the work's result and the peak. */
export async function withRssSampling<T>(
  link: Pick<WorkerLink, 'rssBytes'>,
  work: Promise<T>,
  intervalMs = 250,
): Promise<{ result: T; peakRssBytes: number; meanRssBytes: number }> {
  const samples: number[] = [];
  const sample = async () => samples.push(await link.rssBytes());
  await sample();
  const timer = setInterval(() => void sample(), intervalMs);
  try {
    const result = await work;
    await sample();
    return {
      result,
      peakRssBytes: Math.max(...samples),
      meanRssBytes: samples.reduce((sum, value) => sum + value, 0) / samples.length,
    };
  } finally {
    clearInterval(timer);
  }
}
