// The provider call of an attempt: one SDK call, cancellable, its failure classified. Worker side.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureClass } from '../routing/failure-class';
import { safeIdentifier } from '../providers/provider-failure';
import { ProviderError, type Usage } from '../providers/types';
import type { AttemptFailureDetails, AttemptInput, AttemptSuccess } from './attempt-types';
import { MissingApiKeyError, type ProviderRegistry } from './provider-registry';

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

/** What a provider call needs from the activity running it. */
export interface ProviderCallContext {
  /** Aborts the SDK call: the activity's cancellation. */
  readonly signal: AbortSignal;
  /** Called on each chunk of a streamed answer, so the activity's heartbeat shows progress. */
  readonly onProgress: () => void;
}

/**
 * The provider call itself, shared by the attempt activities: one SDK call, its failure turned into an
 * `ApplicationFailure` whose type is the failure class and whose details are the reduced facts.
 */
export function createProviderCall(registry: ProviderRegistry) {
  return async function callTarget(
    input: AttemptInput,
    context: ProviderCallContext,
  ): Promise<AttemptSuccess> {
    const began = performance.now();
    const elapsed = () => Math.round(performance.now() - began);
    try {
      const provider = registry.get(input.target.provider);
      const result = await provider.generate(input.target.model, input.request, {
        timeoutMs: input.timeoutMs,
        signal: context.signal,
        stream: input.stream,
        onProgress: context.onProgress,
      });
      return { result, latencyMs: elapsed() };
    } catch (error) {
      if (error instanceof ProviderError) {
        // Only the reduced facts cross into history: the message was built by the adapter from the class,
        // status, code and request id, never from the provider's response text.
        const { status, providerCode, retryAfterMs, requestId, requestSent, usage } = error.details;
        throw attemptFailure(error.failureClass, error.message, {
          ...(status !== undefined ? { status } : {}),
          ...(providerCode !== undefined ? { providerCode } : {}),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
          ...(requestId !== undefined ? { requestId } : {}),
          ...(usage !== undefined ? { usage: countsOnly(usage) } : {}),
          requestSent,
          latencyMs: elapsed(),
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
    }
  };
}

/** How often an attempt heartbeats, in milliseconds: three times per heartbeat timeout. */
export function heartbeatIntervalMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(200, Math.floor((heartbeatTimeoutMs ?? 3_000) / 3));
}

/** The provider-attempt activity of routed calls recorded before `attemptTarget`, and of the bench's floor. */
export function createCallProvider(registry: ProviderRegistry) {
  const callTarget = createProviderCall(registry);
  return async function callProvider(input: AttemptInput): Promise<AttemptSuccess> {
    const context = Context.current();
    // Heartbeats let Temporal notice a dead worker within the heartbeat timeout and deliver cancellation.
    const heartbeat = setInterval(
      () => context.heartbeat(),
      heartbeatIntervalMs(context.info.heartbeatTimeoutMs),
    );
    try {
      return await callTarget(input, {
        signal: context.cancellationSignal,
        onProgress: () => context.heartbeat(),
      });
    } finally {
      clearInterval(heartbeat);
    }
  };
}
