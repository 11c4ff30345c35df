// Wraps an adapter so no configured key leaves it: streamed pieces, answers and failures are scrubbed by value. Worker side.
import type { SecretScrubber } from './secret-scrubber';
import { StreamScrubber } from './stream-scrubber';
import { ProviderError, type LanguageModelProvider } from './types';

/** The failure with every key scrubbed from its message and facts (codes, request ids, anything else). */
function scrubbedFailure(error: ProviderError, scrubber: SecretScrubber): ProviderError {
  return new ProviderError(scrubber.text(error.message), error.failureClass, scrubber.value(error.details));
}

/**
 * `provider`, with everything its `generate` streams, resolves or rejects with scrubbed of the scrubber's keys:
 * each streamed piece (`onDelta`, which a gateway relays to its caller as it comes); the answer text, tool
 * calls, reasoning, model, finish reason, usage and request id of a success; the message, code and request id
 * of a failure. What the attempt activity returns, and so history, records and client errors, is built from
 * nothing else. The streamed pieces join to exactly the scrubbed answer, so a stream that showed a key's
 * replacement still continues into the answer.
 */
export function scrubbingProvider(
  provider: LanguageModelProvider,
  scrubber: SecretScrubber,
): LanguageModelProvider {
  if (scrubber.empty) return provider;
  return {
    name: provider.name,
    kind: provider.kind,
    async generate(model, request, options) {
      const { onDelta } = options;
      const stream = onDelta ? new StreamScrubber(scrubber, onDelta) : undefined;
      try {
        const answer = await provider.generate(
          model,
          request,
          stream ? { ...options, onDelta: (delta) => stream.push(delta) } : options,
        );
        // The answer is complete: what the stream held back (the possible start of a key) was not one. On a
        // failure it is dropped instead: the caller's stream ends in an error event either way.
        stream?.flush();
        return scrubber.value(answer);
      } catch (error) {
        throw error instanceof ProviderError ? scrubbedFailure(error, scrubber) : error;
      }
    },
  };
}
