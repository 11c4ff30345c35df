// From an authenticated surface request to a routed call's input: route, key scope, limits, idempotency. Node side.
import { randomUUID } from 'node:crypto';
import { validateCallInput } from '../client/switchyard-client';
import { ownEntry, type Config } from '../config/config';
import {
  GATEWAY_KEY_LABEL,
  RoutingRequirementsSchema,
  type RoutedCallInput,
  type RoutedCallInputValue,
  type RoutingRequirements,
} from '../config/routed-call-input';
import { routedCallWorkflowId } from '../workflows/definitions';
import { keyAllowsRoute, type StoredKey } from './gateway-key';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { applyKeyOutputCeiling, keyRefusal, type KeyPolicy } from './key-policy';
import { RESPONSES_LABELS } from './responses-echo';
import { ROUTING_HEADERS } from './routing-summary';
import type { Surface, SurfaceRequest } from './surface';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;
/** The longest TTL a request header may ask the response cache for, in seconds (7 days, as in the config). */
const MAX_CACHE_HEADER_SECONDS = 7 * 86_400;

/**
 * The call's response-cache choice from the `x-switchyard-cache` request header: `on` (the route's TTL, else the
 * default), `off`, or a TTL in whole seconds (1 to 604 800). Absent: the route's own setting.
 */
export function cacheChoice(header: string | undefined): RoutedCallInput['cache'] {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  if (value === 'on') return true;
  if (value === 'off') return false;
  const seconds = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (seconds >= 1 && seconds <= MAX_CACHE_HEADER_SECONDS) return { ttlMs: seconds * 1000 };
  throw new GatewayError(
    `x-switchyard-cache: "on", "off" or a TTL in whole seconds from 1 to ${MAX_CACHE_HEADER_SECONDS}`,
    GatewayErrorKind.invalidRequest,
    'invalid_request',
    { param: 'x-switchyard-cache' },
  );
}

const PREFERENCES: readonly NonNullable<RoutedCallInput['prefer']>[] = ['cost', 'latency', 'reliability'];

/**
 * The call's preference from the `x-switchyard-prefer` request header: `cost`, `latency` or `reliability` (case and
 * surrounding spaces ignored), ordering the route's candidates by it instead of the route's strategy. Absent: the
 * route's strategy.
 */
export function preferChoice(header: string | undefined): RoutedCallInput['prefer'] {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  const preference = PREFERENCES.find((known) => known === value);
  if (preference) return preference;
  throw new GatewayError(
    `${ROUTING_HEADERS.prefer}: one of ${PREFERENCES.join(', ')}`,
    GatewayErrorKind.invalidRequest,
    'invalid_request',
    { param: ROUTING_HEADERS.prefer },
  );
}

/**
 * The call's hard filters from the `x-switchyard-require` request header: a JSON object of `capabilities` (any of
 * `images`, `documents`, `tools`, `reasoning`), `maxLatencyMs` (whole milliseconds, above 0) and `maxCostUsd`
 * (USD, above 0). A target that does not meet them is rejected before anything is sent. Absent: no filters.
 */
export function requireChoice(header: string | undefined): RoutingRequirements | undefined {
  if (header === undefined) return undefined;
  const refuse = (why: string) =>
    new GatewayError(
      `${ROUTING_HEADERS.require}: ${why}`,
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      {
        param: ROUTING_HEADERS.require,
      },
    );
  let value: unknown;
  try {
    value = JSON.parse(header);
  } catch {
    throw refuse('a JSON object such as {"capabilities":["tools"],"maxLatencyMs":2000,"maxCostUsd":0.01}');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refuse('a JSON object such as {"capabilities":["tools"],"maxLatencyMs":2000,"maxCostUsd":0.01}');
  }
  const parsed = RoutingRequirementsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
  throw refuse(issues.join('; '));
}

export interface PreparedCall {
  readonly route: string;
  readonly input: RoutedCallInput;
  /** The routed call's idempotency key: the caller's, scoped to the gateway key, or a fresh one. */
  readonly callKey: string;
  readonly workflowId: string;
  /** Whether the caller sent an Idempotency-Key (the call then outlives the caller's connection). */
  readonly idempotent: boolean;
}

/**
 * Decides what the call is, refusing before anything starts: an unknown route, or one outside the key, is the
 * same 404; a bad field or a request too large for a Temporal payload a 4xx naming it.
 */
export function prepareCall(options: {
  readonly surface: Surface;
  readonly parsed: SurfaceRequest;
  readonly key: StoredKey;
  /** The routes in effect now (the config's with the runtime changes overlaid): a route it lacks is a 404. */
  readonly config: Config;
  readonly idempotencyKey: string | undefined;
  /** The routed call's whole-call deadline, in milliseconds. */
  readonly deadlineMs: number;
  /** Rules every key is held to (a required budget scope). @default none */
  readonly keyPolicy?: KeyPolicy;
  /** The `x-switchyard-cache` request header ({@link cacheChoice}). @default the route's cache setting */
  readonly cacheHeader?: string;
  /** The `x-switchyard-prefer` request header ({@link preferChoice}). @default the route's strategy */
  readonly preferHeader?: string;
  /** The `x-switchyard-require` request header ({@link requireChoice}). @default no filters */
  readonly requireHeader?: string;
}): PreparedCall {
  const { parsed, key, config } = options;
  const route = parsed.route ?? config.defaultRoute;
  if (route === undefined) {
    throw new GatewayError(
      'model: name a route (there is no default route)',
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      {
        param: 'model',
      },
    );
  }
  // A route outside the key is refused exactly as one that does not exist, so a key cannot learn the names of
  // the routes it may not use by telling a 403 from a 404.
  if (!ownEntry(config.routes, route) || !keyAllowsRoute(key, route)) {
    throw new GatewayError(`model: no route named "${route}"`, GatewayErrorKind.notFound, 'model_not_found', {
      param: 'model',
    });
  }
  const refusedKey = options.keyPolicy ? keyRefusal(key, options.keyPolicy) : undefined;
  if (refusedKey) throw refusedKey;
  if (options.idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(options.idempotencyKey)) {
    throw new GatewayError(
      'Idempotency-Key: 1-200 printable ASCII characters without spaces',
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      { param: 'Idempotency-Key' },
    );
  }
  const cache = cacheChoice(options.cacheHeader);
  const prefer = preferChoice(options.preferHeader);
  const requirements = requireChoice(options.requireHeader);
  const value: RoutedCallInputValue = {
    route,
    request: applyKeyOutputCeiling(parsed.request, key, options.surface.outputLimitField),
    ...(key.budget !== undefined ? { budget: key.budget } : {}),
    deadlineMs: options.deadlineMs,
    stream: parsed.stream,
    ...(cache !== undefined ? { cache } : {}),
    ...(prefer !== undefined ? { prefer } : {}),
    ...(requirements !== undefined ? { require: requirements } : {}),
    labels: {
      ...parsed.labels,
      // An unstored response can be neither read back nor continued (see responses-state.ts).
      ...(parsed.store === false ? { [RESPONSES_LABELS.store]: 'false' } : {}),
      // Last, so no surface label can stand in for the gateway's own: ownership is checked by these.
      gateway: options.surface.name,
      [GATEWAY_KEY_LABEL]: key.id,
    },
  };
  const input = validateCallInput(value);
  // Too large for Temporal is refused by the client's start (PayloadTooLargeError, a 413), which knows whether
  // a payload store takes large payloads out of history.
  // Scoped to the gateway key: two clients choosing the same Idempotency-Key never share a call.
  const callKey =
    options.idempotencyKey !== undefined ? `gw-${key.id}-${options.idempotencyKey}` : `gw-${randomUUID()}`;
  return {
    route,
    input,
    callKey,
    workflowId: routedCallWorkflowId(callKey),
    idempotent: options.idempotencyKey !== undefined,
  };
}
