// `GET /v1/generation?id=`: every physical attempt of one of the key's calls, read back from its routing record. Node side.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoutedCallInspection, SwitchyardClient } from '../client/switchyard-client';
import { addNano, nanoToUsd } from '../routing/money';
import type { AttemptRecord, RoutingRecord } from '../routing/routing-record';
import { ROUTED_CALL_WORKFLOW_TYPES } from '../workflows/definitions';
import { callStatusOf, isGone, keyMadeCall, startInput, type CallStatus } from './call-ownership';
import { gatewayKeyOf } from './gateway-authentication';
import type { EndingCalls } from './ending-calls';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import type { StoredKey } from './gateway-key';

/**
 * The workflow ids the gateway gives its calls (`x-switchyard-workflow-id`): anything else is no call of a key's,
 * and is refused without asking Temporal.
 */
const GATEWAY_CALL_ID = /^switchyard-call-gw-[\x21-\x7e]{1,400}$/;
/** How long a running call's worker has to say which attempts it has made, in milliseconds. */
const RUNNING_QUERY_TIMEOUT_MS = 10_000;
/** When to ask again about a running call whose worker did not answer, in seconds. */
const RUNNING_RETRY_AFTER_SECONDS = 1;

/** One attempt as the audit shows it: the record's fields, with its deployment named and its amounts in USD too. */
export type AuditedAttempt = AttemptRecord & {
  /** `provider/model`: the deployment the attempt was for. */
  readonly deployment: string;
  readonly costUsd: number;
  /** The reserved bound in USD; only when the record holds `reservedNanoUsd`. */
  readonly reservedUsd?: number;
};

/** The audit of one call: its status, route, who served it, what it cost, and every attempt in order. */
export interface GenerationAudit {
  readonly object: 'switchyard.generation';
  /** The call's workflow id, as `x-switchyard-workflow-id` gave it. */
  readonly id: string;
  readonly status: CallStatus;
  readonly route: string | null;
  readonly servedBy: (NonNullable<RoutingRecord['servedBy']> & { readonly deployment: string }) | null;
  /** Requests beyond the first; null while the call runs. */
  readonly fallbacks: number | null;
  /** Walks of the route; null while the call runs. */
  readonly rounds: number | null;
  /** The call's cost so far, in nano-USD: the record's total once it has ended. */
  readonly totalCostNanoUsd: number;
  readonly totalCostUsd: number;
  /** Why the call ended without an answer (a routed call's failure type), else null. */
  readonly error: { readonly type: string; readonly message: string } | null;
  readonly attempts: readonly AuditedAttempt[];
}

/** The one refusal for every id a key cannot read, so that no key learns whether another key's calls exist. */
function notFound(id: string): GatewayError {
  // Echoed only when it has the shape of a gateway call's id: it is the caller's own text, but may be long or odd.
  const shown = GATEWAY_CALL_ID.test(id) ? ` '${id}'` : '';
  return new GatewayError(
    `id: no call${shown} for this key (unknown, expired, or another key's)`,
    GatewayErrorKind.notFound,
    'generation_not_found',
    { param: 'id' },
  );
}

function auditedAttempt(attempt: AttemptRecord): AuditedAttempt {
  // The number and the deployment first, for a reader scanning the list; then the record's fields as they are.
  const { attempt: number, ...fields } = attempt;
  return {
    attempt: number,
    deployment: `${attempt.provider}/${attempt.model}`,
    ...fields,
    costUsd: nanoToUsd(attempt.costNanoUsd),
    ...(attempt.reservedNanoUsd !== undefined ? { reservedUsd: nanoToUsd(attempt.reservedNanoUsd) } : {}),
  };
}

/**
 * The audit body. Fields the record gains beyond the ones named here (an explanation of the choice, the route's
 * version, a cache mark) are passed on as they are.
 */
export function generationAudit(
  inspection: RoutedCallInspection,
  route: string | undefined,
): GenerationAudit {
  const { record } = inspection;
  const {
    attempts: _attempts,
    workflowId: _workflowId,
    route: recordRoute,
    servedBy,
    fallbacks,
    rounds,
    totalCostNanoUsd,
    totalCostUsd: _totalCostUsd,
    ...more
  } = record ?? ({} as Partial<RoutingRecord>);
  const total = totalCostNanoUsd ?? addNano(...inspection.attempts.map((attempt) => attempt.costNanoUsd));
  return {
    object: 'switchyard.generation',
    id: inspection.workflowId,
    status: callStatusOf(inspection.status),
    route: recordRoute ?? route ?? null,
    servedBy: servedBy ? { ...servedBy, deployment: `${servedBy.provider}/${servedBy.model}` } : null,
    fallbacks: fallbacks ?? null,
    rounds: rounds ?? null,
    totalCostNanoUsd: total,
    totalCostUsd: nanoToUsd(total),
    error: inspection.error ?? null,
    ...more,
    attempts: inspection.attempts.map(auditedAttempt),
  };
}

/**
 * The audit of call `id` if `key` made it; otherwise (malformed id, unknown or expired workflow, another key's
 * call, a call not made through the gateway) one and the same 404. An ended call (answered, failed, cancelled)
 * shows its record; a running one the attempts that have ended so far, asked of its worker, or a 503 when no
 * worker answers in time.
 */
export async function readGenerationAudit(
  switchyard: SwitchyardClient,
  id: string,
  key: StoredKey,
  /** Calls this gateway answered ahead of their record: read once they have ended. @default none */
  ending?: EndingCalls,
): Promise<GenerationAudit> {
  if (!GATEWAY_CALL_ID.test(id)) throw notFound(id);
  let description: WorkflowExecutionDescription;
  let input: unknown;
  try {
    description = await switchyard.temporal.workflow.getHandle(id).describe();
    if (!ROUTED_CALL_WORKFLOW_TYPES.includes(description.type)) throw notFound(id);
    input = await startInput(switchyard, id, description.runId);
  } catch (error) {
    if (isGone(error)) throw notFound(id);
    throw error;
  }
  if (!keyMadeCall(input, key)) throw notFound(id);
  // A call this gateway answered ahead of its record is read once it has ended, as its caller would expect.
  const running = callStatusOf(description.status.name) === 'in_progress' && !(await ending?.settled(id));
  // A running call's attempts are asked of its worker (a query), which may be busy or gone: bounded.
  let inspection: RoutedCallInspection;
  try {
    inspection = running
      ? await switchyard.temporal.withAbortSignal(AbortSignal.timeout(RUNNING_QUERY_TIMEOUT_MS), () =>
          switchyard.inspect(id),
        )
      : await switchyard.inspect(id);
  } catch (error) {
    if (isGone(error)) throw notFound(id);
    if (!running) throw error;
    throw new GatewayError(
      `call '${id}' is running and no worker said which attempts it has made; ask again shortly`,
      GatewayErrorKind.unavailable,
      'call_state_unavailable',
      { param: 'id', retryAfterSeconds: RUNNING_RETRY_AFTER_SECONDS },
    );
  }
  return generationAudit(inspection, typeof input.route === 'string' ? input.route : undefined);
}

/** The `id` query parameter, once. */
function idOf(request: FastifyRequest): string {
  const id = (request.query as Record<string, unknown> | undefined)?.id;
  if (typeof id !== 'string' || id === '') {
    throw new GatewayError(
      'id: give the id of one call (its answer\'s "x-switchyard-workflow-id" header)',
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      { param: 'id' },
    );
  }
  return id;
}

/** Adds `GET /v1/generation` to a scope whose requests carry a checked key. */
export function registerGenerationRoute(
  scope: FastifyInstance,
  switchyard: SwitchyardClient,
  ending?: EndingCalls,
): void {
  scope.get('/v1/generation', async (request) =>
    readGenerationAudit(switchyard, idOf(request), gatewayKeyOf(request), ending),
  );
}
