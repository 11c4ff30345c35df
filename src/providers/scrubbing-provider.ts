// Wraps an adapter so no configured key leaves it: answers and failures are scrubbed by value. Worker side.
import type { SecretScrubber } from './secret-scrubber';
import { ProviderError, type LanguageModelProvider } from './types';

/** The failure with every key scrubbed from its message and facts (codes, request ids, anything else). */
function scrubbedFailure(error: ProviderError, scrubber: SecretScrubber): ProviderError {
  return new ProviderError(scrubber.text(error.message), error.failureClass, scrubber.value(error.details));
}

/**
 * `provider`, with everything its `generate` resolves or rejects with scrubbed of the scrubber's keys: the
 * answer text, tool calls, model, finish reason, usage and request id of a success; the message, code and
 * request id of a failure. What the attempt activity returns, and so history, records and client errors, is
 * built from nothing else.
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
      try {
        return scrubber.value(await provider.generate(model, request, options));
      } catch (error) {
        throw error instanceof ProviderError ? scrubbedFailure(error, scrubber) : error;
      }
    },
  };
}
