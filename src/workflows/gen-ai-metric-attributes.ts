// The labels of one attempt's GenAI client metrics, in the form a Prometheus endpoint accepts. Workflow-safe, pure.
import type { ProviderKind } from '../config/request';
import {
  GEN_AI_OPERATION_CHAT,
  GenAiAttribute,
  genAiProviderName,
  type GenAiTokenType,
} from '../routing/gen-ai-conventions';
import { AttemptOutcome, type AttemptRecord } from '../routing/routing-record';
import { SwitchyardGenAiAttribute } from './metric-names';

/**
 * A conventions' attribute name as a Prometheus label name: every character Prometheus does not allow (the dots)
 * becomes `_`, as an OpenTelemetry Collector's Prometheus exporter writes it (`gen_ai.token.type` →
 * `gen_ai_token_type`). The runtime's exporter refuses a label name with a dot and drops the sample.
 */
export function prometheusLabelName(attribute: string): string {
  const name = attribute.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** What the workflow knows of an attempt beyond its record: where it went and, if it answered, what came back. */
export interface GenAiAttemptContext {
  /** The route the call walked. */
  readonly route: string;
  /** The provider kind of the attempt's target: the API it speaks. */
  readonly providerKind: ProviderKind;
  /** The model the provider says answered; absent for a failed attempt. */
  readonly responseModel?: string;
}

/**
 * The labels both GenAI series carry for one attempt that sent a request: the operation (`chat`), the
 * provider, the requested model, the answering model (answered attempts), `error.type` (the failure class,
 * failed attempts only), the route and the attempt's outcome.
 */
export function genAiAttemptLabels(
  attempt: Pick<AttemptRecord, 'provider' | 'model' | 'outcome' | 'failureClass'>,
  context: GenAiAttemptContext,
): Record<string, string> {
  const attributes: Record<string, string> = {
    [GenAiAttribute.operationName]: GEN_AI_OPERATION_CHAT,
    [GenAiAttribute.providerName]: genAiProviderName(context.providerKind, attempt.provider),
    [GenAiAttribute.requestModel]: attempt.model,
    [SwitchyardGenAiAttribute.route]: context.route,
    [SwitchyardGenAiAttribute.outcome]: attempt.outcome,
  };
  if (attempt.outcome === AttemptOutcome.succeeded && context.responseModel) {
    attributes[GenAiAttribute.responseModel] = context.responseModel;
  }
  if (attempt.outcome === AttemptOutcome.failed) {
    // A failure always has a class; `_OTHER` is the conventions' fallback when the class is unknown.
    attributes[GenAiAttribute.errorType] = attempt.failureClass ?? '_OTHER';
  }
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [prometheusLabelName(name), value]),
  );
}

/** The labels of one `gen_ai.client.token.usage` sample: the attempt's, plus the token type. */
export function genAiTokenLabels(
  attemptLabels: Readonly<Record<string, string>>,
  tokenType: GenAiTokenType,
): Record<string, string> {
  return { ...attemptLabels, [prometheusLabelName(GenAiAttribute.tokenType)]: tokenType };
}
