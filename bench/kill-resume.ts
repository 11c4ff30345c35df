// Kill-resume: how soon a routed call whose worker is SIGKILLed mid-attempt resumes on another worker. Bench side.
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SwitchyardClient, type Config } from 'switchyard';
import type { FakeProvider, FakeRequestRecord } from 'switchyard/testing';
import { STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT_MS } from 'switchyard/worker';
import {
  BENCH_MODELS,
  BENCH_REQUEST,
  benchConfig,
  KILL_RESUME_ROUTE,
  MODE_ROUTE,
  type FakeBaseUrls,
} from './bench-config';
import type { BundlePaths } from './bundles';
import type { WorkerSettings } from './protocol';
import type { Goal } from './report';
import { summarize, type Summary } from './stats';
import { WorkerLink } from './worker-link';

/** How long the slow first target takes to answer, in milliseconds: the kill always lands mid-attempt. */
export const KILL_RESUME_SLOW_ANSWER_MS = 3_000;
/** Healthy calls on the kill queue after each worker start, so a fresh worker is warm when it resumes a call. */
const WARM_UP_CALLS = 4;
/** A step of one kill that takes longer than this, in milliseconds, fails that kill (the next one goes on). */
const STEP_TIMEOUT_MS = 60_000;
const POLL_MS = 5;

/** The issue's goal: the median kill resumes within this long, in milliseconds. */
export const KILL_RESUME_GOAL_MS = 3_000;

/** What "resumed" means in these numbers; written into the results. */
export const KILL_RESUME_DEFINITION =
  'SIGKILL of the worker process running the attempt → the fallback attempt’s request reaching the fake provider, ' +
  'sent by the surviving worker (both on one task queue)';

export interface KillResumeSample {
  readonly workflowId: string;
  /** SIGKILL → the next attempt's request at the fake provider, in milliseconds. */
  readonly resumeMs: number;
  /** SIGKILL → the server timing the lost attempt out (`ActivityTaskTimedOut`, heartbeat), in milliseconds. */
  readonly noticedMs: number;
  /** That timeout → the surviving worker starting the call's next workflow task, in milliseconds. */
  readonly pickedUpMs: number;
  /** That workflow task's start → the next attempt's request at the fake provider, in milliseconds. */
  readonly sentMs: number;
  /** The killed worker ran the call's last workflow task, so it held the call's sticky queue. */
  readonly stickyOnKilled: boolean;
  /** The next workflow task timed out on the dead worker's sticky queue before the survivor got it. */
  readonly stickyTimedOut: boolean;
}

export interface KillResumeResult {
  readonly definition: string;
  readonly kills: number;
  /** Kills after which the call resumed on the survivor and was served by the fallback. */
  readonly resumed: number;
  readonly errors: string[];
  readonly resumeMs: Summary;
  readonly noticedMs: Summary;
  readonly pickedUpMs: Summary;
  readonly sentMs: Summary;
  /** Kills whose call's next workflow task waited out the sticky queue's schedule-to-start timeout. */
  readonly stickyTimeouts: number;
  /** The route's heartbeat timeout, in milliseconds: what notices the lost attempt. */
  readonly heartbeatTimeoutMs: number;
  /** The workers' sticky queue schedule-to-start timeout, in milliseconds. */
  readonly stickyQueueScheduleToStartTimeoutMs: number;
  readonly slowAnswerMs: number;
  /** A fixed delay from the request to the kill, in milliseconds, or `spread` over one heartbeat timeout. */
  readonly killDelayMs: number | 'spread';
  readonly samples: KillResumeSample[];
}

export interface KillResumeOptions {
  /** The dev server the bench runs on. */
  readonly address: string;
  /** The orchestrator's client: starts the calls and reads their histories. */
  readonly client: Client;
  /**
   * The bench's driver process, never killed: one call through it first makes the kill route's breakers run on
   * its entity queue, so the kills measure the routed call itself and never strand a breaker.
   */
  readonly driver: WorkerLink;
  /** The 0 ms fake provider (the kill route's endpoint). */
  readonly fake: FakeProvider;
  readonly fakeUrls: FakeBaseUrls;
  readonly settings: WorkerSettings;
  readonly bundles: BundlePaths;
  /** Task queue of the two killable workers; nothing else polls it. */
  readonly taskQueue: string;
  readonly kills: number;
  /** @default {@link KILL_RESUME_SLOW_ANSWER_MS} */
  readonly slowAnswerMs?: number;
  /**
   * How long after the slow request reached the provider the worker is killed, in milliseconds; below the slow
   * answer's delay. At 0 the attempt has not heartbeated yet, so the server notices only a whole heartbeat
   * timeout after the attempt started: the slowest point of an attempt to lose its worker. `spread`: kill `i`
   * of `n` lands `(i − ½) / n` of a heartbeat timeout in, so the kills sample every point of the heartbeat
   * cycle alike, as deaths at random moments would. @default 'spread'
   */
  readonly killDelayMs?: number | 'spread';
  readonly onKill?: (kill: number, sample: KillResumeSample | undefined, error?: string) => void;
}

function within<T>(what: string, promise: Promise<T>, timeoutMs = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** The first request for `model` the fake received after `after` requests. */
async function requestFor(fake: FakeProvider, model: string, after: number): Promise<FakeRequestRecord> {
  for (;;) {
    const found = fake.requests.slice(after).find((request) => request.model === model);
    if (found) return found;
    await delay(POLL_MS);
  }
}

function epochMs(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(time?.seconds ?? 0) * 1_000 + (time?.nanos ?? 0) / 1_000_000;
}

/** The worker identity running the call's attempt (the SDK's default identity is `<pid>@<host>`). */
async function attemptHolder(client: Client, workflowId: string): Promise<string> {
  for (;;) {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    const identity = raw.pendingActivities?.find(
      (activity) =>
        activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
    )?.lastWorkerIdentity;
    if (identity) return identity;
    await delay(POLL_MS);
  }
}

/** Reads the timings of one kill out of the call's history, and checks it resumed on another worker. */
async function readHistory(
  client: Client,
  workflowId: string,
  killedIdentity: string,
  killedAtMs: number,
  resumedAtMs: number,
): Promise<KillResumeSample> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const attempts = events.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'attemptTarget',
  );
  if (attempts.length !== 2) throw new Error(`${workflowId}: ${attempts.length} attempts, not 2`);
  const lostId = Number(attempts[0]!.eventId);
  const timedOutIndex = events.findIndex(
    (event) => Number(event.activityTaskTimedOutEventAttributes?.scheduledEventId ?? -1) === lostId,
  );
  const timedOut = events[timedOutIndex]?.activityTaskTimedOutEventAttributes;
  if (timedOutIndex < 0 || !timedOut) throw new Error(`${workflowId}: the lost attempt never timed out`);
  const timeoutType = timedOut.failure?.timeoutFailureInfo?.timeoutType;
  if (timeoutType !== temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT)
    throw new Error(`${workflowId}: the lost attempt timed out by ${String(timeoutType)}, not its heartbeat`);

  const before = events.slice(0, timedOutIndex);
  const after = events.slice(timedOutIndex + 1);
  const lastTaskBefore = before.filter((event) => event.workflowTaskStartedEventAttributes).at(-1);
  const pickedUp = after.find((event) => event.workflowTaskStartedEventAttributes);
  const pickedUpBy = pickedUp?.workflowTaskStartedEventAttributes?.identity;
  if (!pickedUp || !pickedUpBy || pickedUpBy === killedIdentity)
    throw new Error(`${workflowId}: no workflow task on another worker after the kill`);
  const secondId = Number(attempts[1]!.eventId);
  const secondBy = events.find(
    (event) => Number(event.activityTaskStartedEventAttributes?.scheduledEventId ?? -1) === secondId,
  )?.activityTaskStartedEventAttributes?.identity;
  if (!secondBy || secondBy === killedIdentity)
    throw new Error(`${workflowId}: the next attempt did not run on the surviving worker`);
  const stickyTimedOut = after
    .slice(0, after.indexOf(pickedUp))
    .some(
      (event) =>
        event.workflowTaskTimedOutEventAttributes?.timeoutType ===
        temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
    );

  const timedOutAtMs = epochMs(events[timedOutIndex]!.eventTime);
  const pickedUpAtMs = epochMs(pickedUp.eventTime);
  const round = (value: number) => Math.round(value);
  return {
    workflowId,
    resumeMs: round(resumedAtMs - killedAtMs),
    noticedMs: round(timedOutAtMs - killedAtMs),
    pickedUpMs: round(pickedUpAtMs - timedOutAtMs),
    sentMs: round(resumedAtMs - pickedUpAtMs),
    stickyOnKilled: lastTaskBefore?.workflowTaskStartedEventAttributes?.identity === killedIdentity,
    stickyTimedOut,
  };
}

/**
 * Two plain Switchyard worker processes poll one task queue. Each kill: a routed call on the kill route, whose
 * slow first target keeps its attempt out at the provider; once the fake provider holds that request, the
 * worker process running the attempt (by the identity the server reports for the pending activity) is
 * SIGKILLed, and the time to the fallback's request, sent by the survivor, is the sample. The heartbeat timeout
 * notices the lost attempt; a dead worker's sticky queue may hold the next workflow task for its
 * schedule-to-start timeout. Then a replacement worker starts, is warmed, and the next kill follows.
 */
export async function measureKillResume(options: KillResumeOptions): Promise<KillResumeResult> {
  const { client, fake, taskQueue } = options;
  const slowAnswerMs = options.slowAnswerMs ?? KILL_RESUME_SLOW_ANSWER_MS;
  const killDelayMs = options.killDelayMs ?? 'spread';
  const config: Config = benchConfig(options.fakeUrls);
  const heartbeatTimeoutMs = config.routes[KILL_RESUME_ROUTE]!.heartbeatTimeoutMs;
  const delayOfKill = (kill: number) =>
    killDelayMs === 'spread' ? Math.round(((kill - 0.5) / options.kills) * heartbeatTimeoutMs) : killDelayMs;
  const latest = killDelayMs === 'spread' ? heartbeatTimeoutMs : killDelayMs;
  if (latest >= slowAnswerMs)
    throw new RangeError(`the kill (${latest} ms in) must come before the answer (${slowAnswerMs} ms)`);
  const switchyard = new SwitchyardClient({ client, taskQueue, config });
  const startWorker = () =>
    WorkerLink.start({
      address: options.address,
      fakeUrls: options.fakeUrls,
      settings: options.settings,
      taskQueue,
      role: 'worker',
      bundles: options.bundles,
    });
  const warmUp = async () => {
    for (let call = 0; call < WARM_UP_CALLS; call += 1)
      await switchyard.generate({ route: MODE_ROUTE['0ms'], request: BENCH_REQUEST });
  };

  // The kill route's breakers start on the driver's entity queue (a failed first attempt, then the fallback),
  // so no breaker a kill call asks lives on a worker that is killed.
  fake.script(BENCH_MODELS.slow, { kind: 'error', error: 'server_error' });
  await options.driver.send({
    kind: 'sequential',
    call: { variant: 'routed', mode: '0ms', route: KILL_RESUME_ROUTE },
    count: 1,
  });
  fake.scriptAlways(BENCH_MODELS.slow, { kind: 'answer', delayMs: slowAnswerMs });

  const workers: WorkerLink[] = await Promise.all([startWorker(), startWorker()]);
  const samples: KillResumeSample[] = [];
  const errors: string[] = [];
  try {
    await warmUp();
    for (let kill = 1; kill <= options.kills; kill += 1) {
      let workflowId: string | undefined;
      try {
        const before = fake.requests.length;
        const handle = await switchyard.start({ route: KILL_RESUME_ROUTE, request: BENCH_REQUEST });
        workflowId = handle.workflowId;
        const slow = await within(
          'the slow attempt to reach the provider',
          requestFor(fake, BENCH_MODELS.slow, before),
        );
        const identity = await within('the attempt’s worker', attemptHolder(client, workflowId));
        const victim = workers.find((worker) => identity.startsWith(`${worker.pid}@`));
        if (!victim) throw new Error(`the attempt runs on ${identity}, not on a kill worker`);
        const wait = delayOfKill(kill) - (Date.now() - slow.receivedAt);
        if (wait > 0) await delay(wait);

        const exited = once(victim.child, 'exit');
        const killedAtMs = Date.now();
        victim.child.kill('SIGKILL');
        await exited;
        workers.splice(workers.indexOf(victim), 1);

        const resumed = await within(
          'the next attempt to reach the provider',
          requestFor(fake, BENCH_MODELS.fallback, before),
        );
        const { record } = await within('the call to end', handle.result());
        if (record.servedBy?.model !== BENCH_MODELS.fallback)
          throw new Error(`${workflowId}: served by ${record.servedBy?.model ?? 'nothing'}`);
        const sample = await readHistory(client, workflowId, identity, killedAtMs, resumed.receivedAt);
        samples.push(sample);
        options.onKill?.(kill, sample);
      } catch (error) {
        const message = `kill ${kill}${workflowId ? ` (${workflowId})` : ''}: ${error instanceof Error ? error.message : String(error)}`;
        errors.push(message);
        options.onKill?.(kill, undefined, message);
        if (workflowId)
          await client.workflow
            .getHandle(workflowId)
            .terminate('kill-resume bench: the kill failed')
            .catch(() => undefined);
      }
      // Back to two warm workers before the next kill; started after the call ended, so a worker's start-up
      // does not compete for the CPU with the resume being measured.
      while (workers.length < 2) workers.push(await startWorker());
      if (kill < options.kills) await warmUp();
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }

  const configured = options.settings.workerOptions.stickyQueueScheduleToStartTimeout;
  return {
    definition: KILL_RESUME_DEFINITION,
    kills: options.kills,
    resumed: samples.length,
    errors,
    resumeMs: summarize(samples.map((sample) => sample.resumeMs)),
    noticedMs: summarize(samples.map((sample) => sample.noticedMs)),
    pickedUpMs: summarize(samples.map((sample) => sample.pickedUpMs)),
    sentMs: summarize(samples.map((sample) => sample.sentMs)),
    stickyTimeouts: samples.filter((sample) => sample.stickyTimedOut).length,
    heartbeatTimeoutMs,
    stickyQueueScheduleToStartTimeoutMs:
      typeof configured === 'number' ? configured : STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT_MS,
    slowAnswerMs,
    killDelayMs,
    samples,
  };
}

/** The goal line of the bench's goals table. */
export function killResumeGoal(result: KillResumeResult): Goal {
  const { resumeMs } = result;
  return {
    goal: `kill-resume p50 ≤ ${KILL_RESUME_GOAL_MS} ms (a call on a SIGKILLed worker resumes on another)`,
    measured: `${resumeMs.p50} ms (p90 ${resumeMs.p90}, max ${resumeMs.max}; ${result.resumed}/${result.kills} kills resumed)`,
    met: result.resumed === result.kills && resumeMs.p50 <= KILL_RESUME_GOAL_MS,
  };
}

function killPoint(result: KillResumeResult): string {
  return result.killDelayMs === 'spread'
    ? `spread evenly over the first ${result.heartbeatTimeoutMs} ms after the attempt reached the provider`
    : `each ${result.killDelayMs} ms after the attempt reached the provider`;
}

/** The measurement's cells in the bench's results table: what it measured, and what bounds it. */
export function killResumeRow(result: KillResumeResult): [string, string] {
  const { resumeMs, noticedMs, pickedUpMs, sentMs } = result;
  return [
    `kill-resume over ${result.kills} kills, ${killPoint(result)} (SIGKILL → next attempt's request, from the surviving worker)`,
    `p50 ${resumeMs.p50} ms, p90 ${resumeMs.p90} ms, max ${resumeMs.max} ms, ${result.errors.length} errors; ` +
      `p50 parts: heartbeat timeout noticed ${noticedMs.p50} + survivor's workflow task ${pickedUpMs.p50} ` +
      `(${result.stickyTimeouts} sticky timeouts) + request sent ${sentMs.p50} ms; bounds: heartbeat timeout ` +
      `${result.heartbeatTimeoutMs} ms, sticky schedule-to-start ${result.stickyQueueScheduleToStartTimeoutMs} ms`,
  ];
}

/** The measurement alone, as Markdown (for `npm run bench:kill-resume`). */
export function renderKillResume(result: KillResumeResult): string {
  const goal = killResumeGoal(result);
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    `Resume: ${result.definition}.`,
    '',
    row(['measurement', 'result']),
    row(['---', '---']),
    row(killResumeRow(result)),
    '',
    row(['goal', 'measured', 'met']),
    row(['---', '---', '---']),
    row([goal.goal, goal.measured, goal.met ? 'yes' : '**no**']),
    ...(result.errors.length ? ['', ...result.errors.map((error) => `- ${error}`)] : []),
  ].join('\n');
}
