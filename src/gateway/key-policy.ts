// Rules a gateway holds its keys to: an optional output-token ceiling per key, and requiring a budget scope. Pure.
import { SwitchyardError } from '../config/branded-error';
import { z } from 'zod';
import { GenerationRequestSchema, type GenerationRequestInput } from '../config/request';
import { GatewayError, GatewayErrorKind } from './gateway-error';

/** Environment variables of the key policy, read by the gateway (`switchyard serve`) and `switchyard keys`. */
export const KEY_POLICY_VARIABLES = {
  /** `1` / `true`: every key must carry a budget scope (`--budget`); keys without one are refused. @default off */
  requireBudget: 'SWITCHYARD_GATEWAY_REQUIRE_BUDGET',
} as const;

/** The request's output bound when it names none: `maxOutputTokens`' default, read from the request schema. */
const DEFAULT_MAX_OUTPUT_TOKENS: number = GenerationRequestSchema.shape.maxOutputTokens.parse(undefined);

/**
 * A key's own limits, kept beside its routes and budget in the keys file. `maxOutputTokens` caps what one call
 * made with the key may ask the model to generate (reasoning included), so a leaked or misused key's worst call
 * costs at most its routes' output price times the ceiling.
 */
export const KeyLimitsSchema = z.object({
  /** The most output tokens one call with this key may ask for. @default none: the request's own bound */
  maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
});
export type KeyLimits = z.infer<typeof KeyLimitsSchema>;

export interface KeyPolicy {
  /** Every key must name a budget scope, so no call goes uncapped by a ledger. @default false */
  readonly requireBudget: boolean;
}

/** A key policy setting that cannot be used; the message names the variable. */
export class KeyPolicyError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.KeyPolicyError';

  override readonly name = 'KeyPolicyError';
}

/** The policy from {@link KEY_POLICY_VARIABLES}; an unreadable value throws rather than silently meaning "off". */
export function keyPolicyFromEnvironment(environment: NodeJS.ProcessEnv = process.env): KeyPolicy {
  const variable = KEY_POLICY_VARIABLES.requireBudget;
  const raw = environment[variable]?.trim().toLowerCase() ?? '';
  if (raw === '' || raw === '0' || raw === 'false') return { requireBudget: false };
  if (raw === '1' || raw === 'true') return { requireBudget: true };
  throw new KeyPolicyError(`${variable} must be 1, true, 0 or false, got "${raw}"`);
}

/** What a key needs for these rules: its public id, budget scope and limits. */
export interface KeyScope extends KeyLimits {
  readonly id: string;
  readonly budget?: string | undefined;
  readonly revokedAt?: string | undefined;
}

/** Why a key about to be made breaks the policy (for `switchyard keys create`), or undefined when it does not. */
export function keyCreationProblem(scope: { readonly budget?: string | undefined }, policy: KeyPolicy) {
  if (policy.requireBudget && scope.budget === undefined)
    return `--budget is required: ${KEY_POLICY_VARIABLES.requireBudget} is on, so every key carries a budget scope`;
  return undefined;
}

/**
 * Checks a whole keys file against the policy, for a gateway starting or reloading it: the ids of live keys
 * without a budget scope, named in one error, so an operator who turns the rule on learns every key to replace.
 * @throws KeyPolicyError naming the keys (ids only: they are public)
 */
export function checkKeysAgainstPolicy(keys: readonly KeyScope[], policy: KeyPolicy): void {
  if (!policy.requireBudget) return;
  const unscoped = keys.filter((key) => key.revokedAt === undefined && key.budget === undefined);
  if (unscoped.length === 0) return;
  throw new KeyPolicyError(
    `${KEY_POLICY_VARIABLES.requireBudget} is on and ${unscoped.length === 1 ? 'key' : 'keys'} ` +
      `${unscoped.map((key) => key.id).join(', ')} carry no budget scope: revoke them and create keys with --budget`,
  );
}

/**
 * The refusal for a request made with a key the policy does not allow, checked per request as well as at load,
 * so a keys file edited under a running gateway cannot slip an unscoped key past it.
 */
export function keyRefusal(key: KeyScope, policy: KeyPolicy): GatewayError | undefined {
  if (policy.requireBudget && key.budget === undefined)
    return new GatewayError(
      'this key carries no budget scope, and the gateway requires one for every key',
      GatewayErrorKind.permission,
      'key_without_budget',
    );
  return undefined;
}

/**
 * The request held to the key's output ceiling. A request asking for more is refused (a 400 naming `param`),
 * never cut down in silence: a shorter bound changes the answer. A request that names no bound gets the
 * default or the ceiling, whichever is lower.
 * @param param the caller's field for the bound, e.g. `max_tokens` (Anthropic, OpenAI) or `max_completion_tokens`
 */
export function applyKeyOutputCeiling(
  request: GenerationRequestInput,
  key: KeyScope,
  param = 'max_tokens',
): GenerationRequestInput {
  const ceiling = key.maxOutputTokens;
  if (ceiling === undefined) return request;
  const asked = request.maxOutputTokens;
  if (asked === undefined)
    return ceiling < DEFAULT_MAX_OUTPUT_TOKENS ? { ...request, maxOutputTokens: ceiling } : request;
  if (asked > ceiling)
    throw new GatewayError(
      `${param}: ${asked} is over this key's ceiling of ${ceiling} output tokens`,
      GatewayErrorKind.invalidRequest,
      'invalid_request',
      { param },
    );
  return request;
}
