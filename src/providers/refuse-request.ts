// An adapter's own refusal of a request its format cannot take as asked, raised before anything is sent. Worker side.
import { FailureClass } from '../config/failure-class';
import { providerFailure } from './provider-failure';
import type { ProviderError } from './types';

/** Builds the error for `field` (a path into the neutral request, e.g. `messages[2].content[0].arguments`). */
export type RequestRefusal = (field: string, reason: string) => ProviderError;

/**
 * Refusals are `invalid_request` with `requestSent: false`: the attempt never left, so nothing is billed, and
 * the same request would fail the same way on a retry. The reason names the field and is written by the
 * adapter; it never quotes the request's content.
 * @param label who refused: the configured provider name and the model, e.g. `anthropic claude-sonnet-4-5`, `openai gpt-4o`
 */
export function requestRefusal(label: string): RequestRefusal {
  return (field, reason) =>
    providerFailure(label, FailureClass.invalidRequest, { requestSent: false }, `${field}: ${reason}`);
}
