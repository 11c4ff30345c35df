// The provider-attempt activity: one SDK call, heartbeating, cancellable, failures classified. Worker side.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureClass } from '../routing/failure-class';
import { safeIdentifier } from '../providers/provider-failure';
import { ProviderError, type OutputDelta, type Usage } from '../providers/types';
import type { AttemptFailureDetails, AttemptInput, AttemptSuccess } from './attempt-types';
import { MissingApiKeyError, type ProviderRegistry } from './provider-registry';
import { RelayPusher } from './relay-client';

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

export function createCallProvider(registry: ProviderRegistry) {
  return async function callProvider(input: AttemptInput): Promise<AttemptSuccess> {
    const context = Context.current();
    const began = performance.now();
    const elapsed = () => Math.round(performance.now() - began);
    // [relay, issue 15] A gateway's streamed request: push each piece to its relay. Once output may have
    // reached the caller, every heartbeat says so, so a worker lost mid-stream is not failed over either.
    const superseded = new AbortController();
    const relay = input.relay
      ? new RelayPusher(
          input.relay,
          { attemptId: context.info.activityId, target: input.target },
          {
            onDelivered: () => beat(),
            onSuperseded: () => superseded.abort(),
            onStopped: (reason) => context.log.warn(`relay stopped: ${reason}`),
          },
        )
      : undefined;
    const beat = () => context.heartbeat(relay?.callerHasOutput ? { outputDelivered: true } : undefined);
    // Heartbeats let Temporal notice a dead worker within the heartbeat timeout and deliver cancellation.
    const heartbeatEveryMs = Math.max(200, Math.floor((context.info.heartbeatTimeoutMs ?? 3_000) / 3));
    const heartbeat = setInterval(beat, heartbeatEveryMs);
    try {
      const provider = registry.get(input.target.provider);
      const result = await provider.generate(input.target.model, input.request, {
        timeoutMs: input.timeoutMs,
        signal: relay
          ? AbortSignal.any([context.cancellationSignal, superseded.signal])
          : context.cancellationSignal,
        stream: input.stream,
        onProgress: beat,
        ...(relay ? { onDelta: (delta: OutputDelta) => relay.push(delta) } : {}),
      });
      // Every piece reaches the gateway before the workflow can hear of the answer.
      await relay?.flush();
      if (superseded.signal.aborted) {
        // [relay, issue 15] Answered, but the caller already had another attempt's output: this answer must
        // not be the call's. It was billed, so its real cost is charged.
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
      // [relay, issue 15] Pushes still in flight decide whether output reached the caller: wait for them. Said
      // only of a failure of ours, never of the workflow cancelling the attempt.
      await relay?.flush();
      const outputDelivered = Boolean(relay?.callerHasOutput) && !context.cancellationSignal.aborted;
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
        },
      );
    } finally {
      clearInterval(heartbeat);
    }
  };
}
