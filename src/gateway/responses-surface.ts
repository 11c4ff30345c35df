// The OpenAI Responses surface: request → routed call, the response object, its stream events and errors. Node side.
import { openAIErrorBody } from './openai-surface';
import { responseEchoOf } from './responses-echo';
import { parseResponsesRequest } from './responses-parse';
import { answeredResponseBody } from './responses-render';
import { ResponsesStreamRenderer } from './responses-stream';
import type { Surface } from './surface';

export { RESPONSES_IGNORED_FIELDS, parseResponsesRequest } from './responses-parse';

export const responsesSurface = {
  name: 'responses',
  outputLimitField: 'max_output_tokens',
  answersBeforeRecord: false,
  parse: parseResponsesRequest,
  answer: (answer, identity, routing, request, input) =>
    answeredResponseBody(answer, {
      identity,
      echo: responseEchoOf(input),
      encryptedReasoning: request.encryptedReasoning === true,
      routing,
      ...(identity.completed !== undefined ? { completedAt: identity.completed } : {}),
    }),
  // Errors are shaped as on Chat Completions: the same body, the same type for each failure.
  errorBody: openAIErrorBody,
  streamRenderer: (request, input) =>
    new ResponsesStreamRenderer(responseEchoOf(input), request.encryptedReasoning === true),
} satisfies Surface;
