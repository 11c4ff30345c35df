// The provider call of an attempt: one SDK call, cancellable, its stream relayed, its failure classified. Worker side.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureClass } from '../config/failure-class';
import { safeIdentifier } from '../providers/provider-failure';
import { ProviderError, type OutputDelta, type Usage } from '../providers/types';
import type {
  AttemptFailureDetails,
  AttemptHeartbeatDetails,
  AttemptInput,
  AttemptSuccess,
} from './attempt-types';
import { MissingApiKeyError, type ProviderRegistry } from './provider-registry';
import type { AcknowledgedBeats } from './acknowledged-beats';
import { RelayPusher, type RelayPolicy } from './relay-client';
import type { HeartbeatReceipt } from './sending-mark';

function attemptFailure(
  failureClass: FailureClass,
  message: string,
  details: AttemptFailureDetails,
): ApplicationFailure {
  // Non-retryable: the workflow, not Temporal, decides whether and where to try again.
  return ApplicationFailure.create({ type: failureClass, message, nonRetryable: true, details: [details] });
}

/**
 * The token counts of a failed answer without the provider's own usage object: failure details go into
 * history, and only what we built ourselves may go there (the counts are all the ledger needs).
 */
function countsOnly(usage: Usage): Usage {
  const { inputTokens, cachedInputTokens, outputTokens } = usage;
  return { inputTokens, cachedInputTokens, outputTokens, raw: {} };
}

function supersededMessage(input: AttemptInput): string {
  return `${input.target.provider} ${input.target.model}: stopped, the caller already had another attempt's output`;
}

/**
 * An attempt's heartbeat: every beat carries the same details, so that the last one the server holds says
 * whether the request may have gone out and whether output already reached the caller (a worker lost mid-stream
 * must not be failed over either).
 */
export class AttemptHeartbeat {
  private details: AttemptHeartbeatDetails;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param deferred Beat only from {@link sending} on: before it, nothing may overwrite the sending mark's
   * absence with a late beat (the attempt keeps itself alive another way while it reserves).
   * @default false: beating from now on
   * @param acknowledged Every beat through this channel instead of the worker's own path, in order (an attempt
   * that may record its answer in a heartbeat, see {@link answered}). @default the worker's own path
   */
  constructor(
    private readonly context: Context,
    deferred = false,
    private readonly acknowledged?: AcknowledgedBeats,
  ) {
    this.details = {};
    if (!deferred) this.start();
  }

  private start(): void {
    // Heartbeats let Temporal notice a dead worker within the heartbeat timeout and deliver cancellation.
    this.timer ??= setInterval(() => this.beat(), heartbeatIntervalMs(this.context.info.heartbeatTimeoutMs));
  }

  beat(): void {
    if (this.acknowledged) this.acknowledged.beat(this.details);
    else this.context.heartbeat(this.details);
  }

  /** What every beat says now (for a beat sent another way, which must not say less). */
  get current(): AttemptHeartbeatDetails {
    return this.details;
  }

  /** The request is about to leave: every beat from now on says so, and beats go on until {@link stop}. */
  sending(): void {
    this.details = { ...this.details, sending: true };
    this.beat();
    this.start();
  }

  /** From now on every beat says output reached the caller; one goes out at once. */
  outputDelivered(): void {
    this.details = { ...this.details, outputDelivered: true };
    this.beat();
  }

  /**
   * From now on every beat carries the whole answer (see {@link AttemptHeartbeatDetails.answered}); one goes out
   * at once and resolves to the server's receipt. Only on the acknowledged channel, where no beat sent before it
   * can land after it: on the worker's own path the answer is never taken as recorded (`unrecorded`).
   */
  async answered(success: AttemptSuccess): Promise<HeartbeatReceipt> {
    if (!this.acknowledged) return 'unrecorded';
    this.details = { ...this.details, answered: success };
    return this.acknowledged.now(this.details);
  }

  stop(): void {
    clearInterval(this.timer);
    this.acknowledged?.stop();
  }
}

/** What a provider call needs from the activity running it. */
export interface ProviderCallContext {
  /** The activity's context: its cancellation aborts the SDK call, its id names the attempt to a relay. */
  readonly activity: Context;
  readonly heartbeat: AttemptHeartbeat;
  /**
   * Aborted when the caller left: the gateway's relay answered so, or the call told the attempt's watch it was
   * cancelled. The provider request stops at once. @default one of the call's own, that nobody aborts
   */
  readonly callerLeft?: AbortController;
}

/**
 * The provider call itself, shared by the attempt activities: one SDK call, a gateway's streamed pieces pushed to
 * its relay, its failure turned into an `ApplicationFailure` whose type is the failure class and whose details
 * are the reduced facts.
 */
export function createProviderCall(registry: ProviderRegistry, relayPolicy: RelayPolicy = {}) {
  return async function callTarget(
    input: AttemptInput,
    { activity, heartbeat, callerLeft = new AbortController() }: ProviderCallContext,
  ): Promise<AttemptSuccess> {
    const began = performance.now();
    const elapsed = () => Math.round(performance.now() - began);
    // A gateway's streamed request: push each piece to its relay, in order, as it comes.
    const superseded = new AbortController();
    const relay = input.relay
      ? new RelayPusher(
          input.relay,
          { attemptId: activity.info.activityId, target: input.target },
          {
            onDelivered: () => heartbeat.outputDelivered(),
            onSuperseded: () => {
              superseded.abort();
              heartbeat.outputDelivered();
            },
            onCancelled: () => callerLeft.abort(),
            onStopped: (reason) => activity.log.warn(`relay stopped: ${reason}`),
          },
          relayPolicy,
        )
      : undefined;
    try {
      const provider = registry.get(input.target.provider);
      const result = await provider.generate(input.target.model, input.request, {
        timeoutMs: input.timeoutMs,
        signal: AbortSignal.any([
          activity.cancellationSignal,
          callerLeft.signal,
          ...(relay ? [superseded.signal] : []),
        ]),
        stream: input.stream,
        onProgress: () => heartbeat.beat(),
        ...(relay ? { onDelta: (delta: OutputDelta) => relay.push(delta) } : {}),
      });
      // Every piece reaches the gateway before the workflow can hear of the answer.
      await relay?.flush();
      if (superseded.signal.aborted) {
        // Answered, but the caller already had another attempt's output: this answer must not be the call's. It
        // was billed, so its real cost is charged.
        throw attemptFailure(FailureClass.cancelled, supersededMessage(input), {
          status: 200,
          requestSent: true,
          latencyMs: elapsed(),
          usage: countsOnly(result.usage),
          outputDelivered: true,
        });
      }
      return { result, latencyMs: elapsed() };
    } catch (error) {
      // Pushes still in flight decide whether output reached the caller: wait for them. Said only of a failure of
      // ours, never of the workflow cancelling the attempt.
      await relay?.flush();
      // A caller who left is past caring: its call is being cancelled, not failed over.
      const outputDelivered =
        Boolean(relay?.callerHasOutput) && !activity.cancellationSignal.aborted && !callerLeft.signal.aborted;
      if (error instanceof ApplicationFailure) throw error;
      if (error instanceof ProviderError) {
        // Only the reduced facts cross into history: the message was built by the adapter from the class,
        // status, code and request id, never from the provider's response text.
        const { status, providerCode, retryAfterMs, requestId, requestSent, usage } = error.details;
        const message = superseded.signal.aborted ? supersededMessage(input) : error.message;
        throw attemptFailure(error.failureClass, message, {
          ...(status !== undefined ? { status } : {}),
          ...(providerCode !== undefined ? { providerCode } : {}),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
          ...(requestId !== undefined ? { requestId } : {}),
          ...(usage !== undefined ? { usage: countsOnly(usage) } : {}),
          requestSent,
          latencyMs: elapsed(),
          ...(outputDelivered ? { outputDelivered } : {}),
        });
      }
      if (error instanceof MissingApiKeyError) {
        // The next target has its own key, so this fails over like a 401 would.
        throw attemptFailure(FailureClass.authentication, error.message, {
          requestSent: false,
          latencyMs: elapsed(),
        });
      }
      // Anything else is a bug in an adapter; its name says which, its message may hold response text.
      throw attemptFailure(
        FailureClass.invalidResponse,
        `unexpected adapter error: ${safeIdentifier((error as Error | undefined)?.name) ?? 'unnamed'}`,
        {
          requestSent: true,
          latencyMs: elapsed(),
          ...(outputDelivered ? { outputDelivered } : {}),
        },
      );
    }
  };
}

/** How often an attempt heartbeats, in milliseconds: three times per heartbeat timeout. */
export function heartbeatIntervalMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.floor((heartbeatTimeoutMs ?? 3_000) / 3));
}

/** The provider-attempt activity of routed calls recorded before `attemptTarget`, and of the bench's floor. */
export function createCallProvider(registry: ProviderRegistry, relayPolicy: RelayPolicy = {}) {
  const callTarget = createProviderCall(registry, relayPolicy);
  return async function callProvider(input: AttemptInput): Promise<AttemptSuccess> {
    const activity = Context.current();
    const heartbeat = new AttemptHeartbeat(activity);
    try {
      return await callTarget(input, { activity, heartbeat });
    } finally {
      heartbeat.stop();
    }
  };
}
