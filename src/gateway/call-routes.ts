// The gateway's call routes: one request, one routed call, answered whole or streamed; a caller who leaves cancels it. Node side.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RelayReply, type RelayAnswer } from '../config/relay';
import type { RoutedCallHandle, SwitchyardClient } from '../client/switchyard-client';
import type { RoutedCallResult } from '../routing/routing-record';
import { anthropicSurface } from './anthropic-surface';
import { prepareCall, type PreparedCall } from './call-input';
import type { GatewayRoutes } from './gateway-routes';
import type { StoredKey } from './gateway-key';
import type { KeyPolicy } from './key-policy';
import { CallerPresence } from './caller-presence';
import { EndingCalls } from './ending-calls';
import { answerOf, handedAnswer } from './handed-answer';
import { gatewayKeyOf, header } from './gateway-authentication';
import { GatewayError, GatewayErrorKind, toGatewayError } from './gateway-error';
import { openAISurface } from './openai-surface';
import type { RelayHub, RelayRegistration } from './relay-hub';
import { describeRequestCall, recordRequestError } from './request-span';
import { responseIdOf } from './response-id';
import { withItemReferences } from './responses-item-references';
import { conversationBefore } from './responses-state';
import { responsesSurface } from './responses-surface';
import { responseTimesOf, type ResponseTimes } from './responses-times';
import { ROUTING_HEADERS, routingHeaders, summaryOf, summaryOfHandedAnswer } from './routing-summary';
import { StreamedResponse } from './streamed-response';
import type { ResponseIdentity, Surface, SurfaceRequest } from './surface';

/** Beyond the call's deadline, how long the gateway still waits for the workflow to report it, in milliseconds. */
const WAIT_GRACE_MS = 15_000;

export interface CallRoutesOptions {
  readonly switchyard: SwitchyardClient;
  /** The routes requests may name: the config's with the runtime changes overlaid. */
  readonly routes: GatewayRoutes;
  readonly hub: RelayHub;
  /** Calls answered ahead of their record, until they end. @default none kept */
  readonly ending?: EndingCalls;
  /** Answer ahead of the call's record where the surface allows (see `GatewayOptions.earlyAnswers`). @default true */
  readonly earlyAnswers?: boolean;
  /** The routed call's whole-call deadline, in milliseconds. */
  readonly callTimeoutMs: number;
  /** Learns each request's workflow id, for the request log. */
  readonly onWorkflow: (request: FastifyRequest, workflowId: string) => void;
  /** Rules every key is held to on every request (a required budget scope). @default none */
  readonly keyPolicy?: KeyPolicy;
}

/**
 * `times` are the ended call's record's (workflow time), or the handed answer's first attempt's start: they date
 * the response, so a stored response read back later says what it said when answered. A stream starts before
 * any record, on the gateway's clock.
 */
function identityOf(
  surface: Surface,
  parsed: SurfaceRequest,
  workflowId: string,
  model: string,
  times: ResponseTimes = {},
): ResponseIdentity {
  const digest = createHash('sha256').update(workflowId).digest('hex').slice(0, 24);
  const id =
    surface.name === 'responses'
      ? responseIdOf(workflowId, parsed.store !== false)
      : surface.name === 'openai'
        ? `chatcmpl-${digest}`
        : `msg_${digest}`;
  return {
    id,
    model,
    created: times.created ?? Math.floor(Date.now() / 1000),
    ...(times.completed !== undefined ? { completed: times.completed } : {}),
  };
}

function withWorkflow(error: unknown, workflowId: string): GatewayError {
  const converted = toGatewayError(error);
  return converted.context.workflowId
    ? converted
    : new GatewayError(converted.message, converted.kind, converted.code, {
        ...converted.context,
        workflowId,
      });
}

export interface CallRoutes {
  /**
   * Stops waiting for calls (each goes on in Temporal, its caller told so with a 503), so that no wait on the
   * Temporal connection outlives the gateway. For after the server closed.
   */
  stopWaiting(): void;
}

/**
 * `POST /v1/chat/completions`, `POST /v1/messages` and `POST /v1/responses`, on a scope whose requests carry a
 * checked key.
 */
export function registerCallRoutes(scope: FastifyInstance, options: CallRoutesOptions): CallRoutes {
  const { switchyard, routes, hub, callTimeoutMs } = options;
  const ending = options.ending ?? new EndingCalls();
  const answersEarly = (surface: Surface) => surface.answersBeforeRecord && options.earlyAnswers !== false;
  const closing = new AbortController();

  /**
   * Waits for the call within the request's time; a call still running after it is a 504 that names it. `stop`
   * ends the wait early (the answer came from the attempt): it then rejects, and nobody reads why.
   */
  const waitForResult = async (handle: RoutedCallHandle, stop?: AbortSignal): Promise<RoutedCallResult> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), callTimeoutMs + WAIT_GRACE_MS);
    try {
      const signal = AbortSignal.any([abort.signal, closing.signal, ...(stop ? [stop] : [])]);
      return await switchyard.temporal.withAbortSignal(signal, () => handle.result());
    } catch (error) {
      if (closing.signal.aborted) {
        throw new GatewayError(
          `the gateway is shutting down; the call goes on as workflow ${handle.workflowId}`,
          GatewayErrorKind.unavailable,
          'GatewayClosing',
          { workflowId: handle.workflowId },
        );
      }
      if (!abort.signal.aborted) throw error;
      throw new GatewayError(
        `the call did not end within ${Math.round((callTimeoutMs + WAIT_GRACE_MS) / 1000)} s; it goes on as ` +
          `workflow ${handle.workflowId} (ask again with the same Idempotency-Key for its answer)`,
        GatewayErrorKind.timeout,
        'GatewayTimeout',
        { workflowId: handle.workflowId },
      );
    } finally {
      clearTimeout(timer);
    }
  };

  /**
   * Starts the call, cancelled once its caller leaves, unless an Idempotency-Key asked it to outlive the caller.
   * The caller may leave before the start returns (or before it began): the cancel then follows the start, so
   * no departure goes unnoticed and no call runs, and is billed, for nobody. A caller already gone before
   * anything started gets no call at all.
   */
  const startForCaller = (
    presence: CallerPresence,
    prepared: PreparedCall,
    relay?: RelayRegistration,
  ): Promise<RoutedCallHandle> => {
    if (presence.departed && !prepared.idempotent) {
      return Promise.reject(
        new GatewayError('the caller left before the call started', GatewayErrorKind.cancelled, 'Cancelled'),
      );
    }
    const started = switchyard.start(relay ? { ...prepared.input, relay: relay.target } : prepared.input, {
      idempotencyKey: prepared.callKey,
    });
    presence.onDeparture(() => {
      if (prepared.idempotent) {
        relay?.close();
        return;
      }
      // The relay tells the attempt at its next push, ahead of the heartbeat that brings the cancellation.
      relay?.close('cancelled');
      started.then((handle) => handle.cancel()).catch(() => undefined);
    });
    return started;
  };

  /**
   * A Responses request that continues an earlier response (`previous_response_id`) gets that response's
   * conversation before its own input, read back from Temporal, before anything about the call is decided.
   */
  const withConversationBefore = async (parsed: SurfaceRequest, key: StoredKey): Promise<SurfaceRequest> => {
    if (parsed.previousResponseId === undefined) return parsed;
    const before = await conversationBefore(switchyard, parsed.previousResponseId, key);
    return { ...parsed, request: { ...parsed.request, messages: [...before, ...parsed.request.messages] } };
  };

  const answerCall = async (surface: Surface, request: FastifyRequest, reply: FastifyReply) => {
    describeRequestCall(request, { surface: surface.name });
    const key = gatewayKeyOf(request);
    // Item references name items of stored responses: read back before the body is parsed as a whole.
    const body =
      surface.name === 'responses' ? await withItemReferences(switchyard, request.body, key) : request.body;
    const parsed = await withConversationBefore(surface.parse(body), key);
    const prepared = prepareCall({
      surface,
      parsed,
      key,
      config: await routes.current(),
      idempotencyKey: header(request, 'idempotency-key'),
      deadlineMs: callTimeoutMs,
      ...(options.keyPolicy ? { keyPolicy: options.keyPolicy } : {}),
      cacheHeader: header(request, 'x-switchyard-cache'),
      preferHeader: header(request, ROUTING_HEADERS.prefer),
      requireHeader: header(request, ROUTING_HEADERS.require),
    });
    options.onWorkflow(request, prepared.workflowId);
    describeRequestCall(request, {
      requestedModel: parsed.route ?? prepared.route,
      route: prepared.route,
      workflowId: prepared.workflowId,
    });
    const presence = new CallerPresence(reply.raw);
    if (parsed.stream) return streamCall(surface, parsed, presence, reply, prepared);
    const registration = answersEarly(surface) ? hub.open({ answer: true }) : undefined;
    try {
      const handed = registration ? handedAnswer(registration) : undefined;
      const outcome = await answerOrResult(await startForCaller(presence, prepared, registration), handed);
      const routing =
        'push' in outcome
          ? summaryOfHandedAnswer(prepared.workflowId, outcome.push)
          : summaryOf(prepared.workflowId, prepared.route, outcome.result.record);
      const answer = 'push' in outcome ? answerOf(outcome.push) : outcome.result.answer;
      const model =
        'push' in outcome ? outcome.push.target.model : (outcome.result.record.servedBy?.model ?? 'unknown');
      // An answer from the attempt dates from the call's first attempt, as the record will.
      const times =
        'push' in outcome
          ? { created: Math.floor(outcome.push.createdAtMs / 1000) }
          : responseTimesOf(outcome.result.record);
      const identity = identityOf(surface, parsed, prepared.workflowId, model, times);
      return reply
        .headers(routingHeaders(routing))
        .send(surface.answer(answer, identity, routing, parsed, prepared.input));
    } catch (error) {
      throw withWorkflow(error, prepared.workflowId);
    } finally {
      registration?.close();
    }
  };

  /**
   * The answer an attempt handed over, or the call's result, whichever comes first. A handed answer is in history
   * already, and the call ends with it: the wait for the result stops there, and only a read of the call soon
   * after waits for its end (see {@link EndingCalls}).
   */
  const answerOrResult = async (
    handle: RoutedCallHandle,
    handed: Promise<RelayAnswer> | undefined,
  ): Promise<{ push: RelayAnswer } | { result: RoutedCallResult }> => {
    if (!handed) return { result: await waitForResult(handle) };
    const stop = new AbortController();
    const result = waitForResult(handle, stop.signal);
    const outcome = await Promise.race([
      handed.then((push) => ({ push })),
      result.then((value) => ({ result: value })),
    ]);
    if ('push' in outcome) {
      stop.abort();
      result.catch(() => undefined);
      ending.answered(handle.workflowId, (signal) =>
        switchyard.temporal.withAbortSignal(signal, () => handle.result()),
      );
    }
    return outcome;
  };

  const streamCall = async (
    surface: Surface,
    parsed: SurfaceRequest,
    presence: CallerPresence,
    reply: FastifyReply,
    prepared: PreparedCall,
  ) => {
    // From here on the response is written by hand, event by event.
    reply.hijack();
    const registration = hub.open({ answer: answersEarly(surface) });
    const streamed = new StreamedResponse({
      surface,
      renderer: surface.streamRenderer(parsed, prepared.input),
      response: reply.raw,
      workflowId: prepared.workflowId,
      route: prepared.route,
      identity: (model) => identityOf(surface, parsed, prepared.workflowId, model),
    });
    // The stream ended from the attempt's answer: nothing more is needed of the call's result.
    const handed = new AbortController();
    // Set before the call starts: its first attempt may push before start() has even returned.
    registration.onPush = (push) => {
      const status = streamed.accept(push);
      if ('answer' in push && status === RelayReply.accepted) {
        // The stream is over: nothing more may come through this relay.
        registration.close();
        handed.abort();
        ending.answered(prepared.workflowId, (signal) =>
          switchyard.temporal.withAbortSignal(signal, () => switchyard.handle(prepared.workflowId).result()),
        );
      }
      return status;
    };
    try {
      const handle = await startForCaller(presence, prepared, registration);
      if (!handed.signal.aborted) streamed.finish(await waitForResult(handle, handed.signal));
    } catch (error) {
      if (handed.signal.aborted) return;
      const failure = withWorkflow(error, prepared.workflowId);
      recordRequestError(reply.request, failure.code);
      streamed.fail(failure);
    } finally {
      // Fastify's onResponse hook still logs the hijacked response when it ends.
      registration.close();
    }
  };

  scope.post('/v1/chat/completions', (request, reply) => answerCall(openAISurface, request, reply));
  scope.post('/v1/messages', (request, reply) => answerCall(anthropicSurface, request, reply));
  scope.post('/v1/responses', (request, reply) => answerCall(responsesSurface, request, reply));
  return { stopWaiting: () => closing.abort() };
}
