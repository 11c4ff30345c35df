// Writes one fake provider response for a resolved scenario: errors, faults, JSON answers and SSE streams.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { buildAnswer, type AnsweringScenario, type FakeParsedRequest } from './answer';
import type { FakeErrorContext, FakeErrorResponse } from './error-catalog';
import type { FakeResponseIds, ProviderWire } from './provider-wire';
import type { FakeScenario } from './scenario';
import type { ExchangeTally } from './traffic-log';

/** One request being answered, with what the responder needs from the server. */
export interface FakeExchange {
  readonly wire: ProviderWire;
  readonly request: FakeParsedRequest;
  readonly response: ServerResponse;
  readonly ids: FakeResponseIds;
  readonly errorContext: FakeErrorContext;
  readonly tally: ExchangeTally;
  /** Resolves true after `ms`, or false as soon as the client went away or the server is closing. */
  wait(ms: number): Promise<boolean>;
}

/** A JSON body that stops mid-object. */
const TRUNCATED_JSON =
  '{"id":"fake","object":"chat.completion","choices":[{"index":0,"message":{"role":"assist';

function baseHeaders(exchange: FakeExchange, scenario: FakeScenario | undefined): Record<string, string> {
  return { [exchange.wire.requestIdHeader]: exchange.errorContext.requestId, ...scenario?.headers };
}

function retryAfterHeaders(scenario: Extract<FakeScenario, { kind: 'error' }>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (scenario.retryAfterSeconds !== undefined) headers['retry-after'] = String(scenario.retryAfterSeconds);
  if (scenario.retryAfterDate !== undefined) headers['retry-after'] = scenario.retryAfterDate;
  if (scenario.retryAfterMs !== undefined) headers['retry-after-ms'] = String(scenario.retryAfterMs);
  return headers;
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType =
    typeof body !== 'string' ? 'application/json' : text.startsWith('<') ? 'text/html' : 'text/plain';
  // Node knows no reason phrase for Anthropic's 529; send the one Anthropic's edge uses.
  const reason = STATUS_CODES[status] ?? (status === 529 ? 'Site Overloaded' : 'Unknown');
  response.writeHead(status, reason, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/**
 * Drops the connection mid-response. `end()` (not `destroy()`) so the bytes already written reach the
 * client first; the response itself stays unfinished, which the client sees as a cut body or stream.
 */
function cutConnection(response: ServerResponse): void {
  response.socket?.end();
}

function sendError(exchange: FakeExchange, error: FakeErrorResponse, headers: Record<string, string>): void {
  send(exchange.response, error.status, error.body, headers);
  exchange.tally.failed();
}

/** Answers one request according to its scenario (undefined: the default echo answer). */
export async function respond(exchange: FakeExchange, scenario: FakeScenario | undefined): Promise<void> {
  const { wire, request, response, tally } = exchange;
  const headers = baseHeaders(exchange, scenario);
  switch (scenario?.kind) {
    case 'hang':
      // Say nothing; the socket is destroyed when the client aborts or the server closes.
      tally.failed();
      return;
    case 'reset':
      response.socket?.destroy();
      tally.failed();
      return;
    case 'raw':
      send(response, scenario.status, scenario.body, headers);
      if (scenario.status < 400) tally.answered();
      else tally.failed();
      return;
    case 'error':
      return sendError(exchange, wire.errorResponse(scenario.error, exchange.errorContext), {
        ...headers,
        ...retryAfterHeaders(scenario),
      });
    case 'invalid_json':
      send(response, 200, TRUNCATED_JSON, { ...headers, 'content-type': 'application/json' });
      tally.failed();
      return;
    case 'stream_error':
      if (!request.stream)
        return sendError(exchange, wire.errorResponse(scenario.error, exchange.errorContext), headers);
      return streamAnswer(exchange, undefined, headers, {
        stopAfter: scenario.afterEvents ?? 1,
        ending: (sent) =>
          wire.streamErrorEvent(scenario.error, exchange.errorContext, {
            sent,
            request,
            ids: exchange.ids,
            event: scenario.responsesEvent,
          }),
      });
    default:
      return request.stream
        ? streamAnswer(exchange, scenario, headers)
        : jsonAnswer(exchange, scenario, headers);
  }
}

function answerFor(exchange: FakeExchange, scenario: AnsweringScenario | undefined) {
  const prefix = `${exchange.wire.toolCallIdPrefix}${exchange.ids.responseId.replace(/^\D+/, '')}`;
  const answer = buildAnswer(exchange.request, scenario, (index) => `${prefix}_${index}`);
  const key = exchange.errorContext.echo?.text;
  if (key === undefined) return answer;
  // `echoApiKey: ['body']` on an answer: the key is in the text (or the refusal) the model "wrote".
  return answer.refusal !== undefined
    ? { ...answer, refusal: `${answer.refusal} ${key}` }
    : { ...answer, text: `${answer.text} ${key}` };
}

function jsonAnswer(
  exchange: FakeExchange,
  scenario: AnsweringScenario | undefined,
  headers: Record<string, string>,
): void {
  const { wire, request, response, tally } = exchange;
  const answer = answerFor(exchange, scenario);
  const body = wire.jsonBody(answer, request, exchange.ids);
  if (scenario?.kind === 'stream_cut') {
    // Promise the whole body, send half of it, then drop the connection.
    const text = JSON.stringify(body);
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    response.write(text.slice(0, Math.floor(text.length / 2)));
    cutConnection(response);
    tally.failed();
    return;
  }
  send(response, 200, body, headers);
  if (answer.empty) {
    tally.failed();
    return;
  }
  tally.answered();
  tally.bill(answer.usage);
}

interface StreamInterruption {
  /** Number of answer events sent before the interruption. */
  readonly stopAfter: number;
  /** A last event (an error) to send before ending the response, given how many answer events were sent. */
  readonly ending: (sent: number) => string;
}

async function streamAnswer(
  exchange: FakeExchange,
  scenario: AnsweringScenario | undefined,
  headers: Record<string, string>,
  interruption?: StreamInterruption,
): Promise<void> {
  const { wire, request, response, tally } = exchange;
  const answer = answerFor(exchange, scenario);
  const { events, finalEvents } = wire.streamEvents(answer, request, exchange.ids);
  const chunkDelayMs = scenario?.kind === 'answer' ? (scenario.chunkDelayMs ?? 0) : 0;
  const cutAfter =
    scenario?.kind === 'stream_cut' ? (scenario.afterEvents ?? Math.ceil(events.length / 2)) : undefined;

  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  for (const [index, event] of events.entries()) {
    if (index === cutAfter) {
      cutConnection(response);
      tally.failed();
      return;
    }
    if (interruption && index === interruption.stopAfter) break;
    response.write(event);
    if (chunkDelayMs > 0 && !(await exchange.wait(chunkDelayMs))) {
      tally.failed();
      return;
    }
  }
  if (interruption) {
    response.end(interruption.ending(Math.min(interruption.stopAfter, events.length)));
    tally.failed();
    return;
  }
  if (cutAfter !== undefined) {
    // Fewer events than the cut point: cut before the final events instead.
    cutConnection(response);
    tally.failed();
    return;
  }
  if (scenario?.kind === 'stream_no_final_event' || answer.empty) {
    if (scenario?.kind !== 'stream_no_final_event') for (const event of finalEvents) response.write(event);
    response.end();
    tally.failed();
    return;
  }
  for (const event of finalEvents) response.write(event);
  response.end();
  tally.answered();
  if (request.includeUsage) tally.bill(answer.usage);
}
