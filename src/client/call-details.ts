// The static details a routed call starts with in the Temporal UI: route, targets, request digest. Node side.
import { ownEntry, type Config } from '../config/config';
import type { RoutedCallInput } from '../config/routed-call-input';
import type { RouteTarget, Target } from '../config/route';
import { requestDigest } from './request-digest';

function seconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))} s`;
}

/** One line of a Markdown ordered list: `1. openai/gpt-4o-mini (timeout 30 s, 1 retry)`. */
function describeTarget(
  target:
    | (Pick<Target, 'provider' | 'model'> & Partial<Target>)
    | Pick<RouteTarget & { route: string }, 'route'>,
  index: number,
): string {
  if ('route' in target) return `${index + 1}. route ${target.route}`;
  const extras = [
    target.timeoutMs !== undefined ? `timeout ${seconds(target.timeoutMs)}` : undefined,
    target.retries ? `${target.retries} ${target.retries === 1 ? 'retry' : 'retries'}` : undefined,
  ].filter(Boolean);
  return `${index + 1}. ${target.provider}/${target.model}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}

/** The route's name and targets as the client knows them: inline, or from its config when it has one. */
function routeLines(input: RoutedCallInput, config: Config | undefined): string[] {
  if (input.route !== undefined && typeof input.route !== 'string') {
    return ['**Route** inline', '', ...input.route.targets.map(describeTarget)];
  }
  const name = input.route ?? config?.defaultRoute;
  const spec = name !== undefined && config ? ownEntry(config.routes, name) : undefined;
  const label = name ?? 'the default route';
  if (!spec) return [`**Route** ${label}`, '', 'targets: resolved by the worker (see the attempts)'];
  return [`**Route** ${label}`, '', ...spec.targets.map(describeTarget)];
}

/**
 * Markdown for the UI's static details of a routed call: the route and its targets, a digest of the request
 * (never the prompt), and the call's limits. Static details are set at start and never change; the attempts
 * so far are the workflow's current details.
 */
export function routedCallStaticDetails(input: RoutedCallInput, config?: Config): string {
  const { request } = input;
  const requestFacts = [
    `digest ${requestDigest(request)}`,
    `${request.messages.length} ${request.messages.length === 1 ? 'message' : 'messages'}`,
    request.system !== undefined ? 'system prompt' : undefined,
    `max ${request.maxOutputTokens} output tokens`,
    request.temperature !== undefined ? `temperature ${request.temperature}` : undefined,
    request.jsonSchema ? 'JSON schema' : undefined,
    request.tools?.length ? `${request.tools.length} tools` : undefined,
    input.stream ? 'streamed' : undefined,
  ].filter(Boolean);
  const limits = [
    input.budget !== undefined ? `budget scope ${input.budget}` : undefined,
    input.maxCostUsd !== undefined ? `max cost ${input.maxCostUsd} USD` : undefined,
    input.deadlineMs !== undefined ? `deadline ${seconds(input.deadlineMs)}` : undefined,
    input.patienceMs ? `patience ${seconds(input.patienceMs)}` : undefined,
  ].filter(Boolean);
  const labels = Object.entries(input.labels ?? {}).map(([key, value]) => `${key}=${value}`);
  return [
    ...routeLines(input, config),
    '',
    `**Request** ${requestFacts.join(' · ')}`,
    ...(limits.length ? ['', `**Limits** ${limits.join(' · ')}`] : []),
    ...(labels.length ? ['', `**Labels** ${labels.join(' · ')}`] : []),
  ].join('\n');
}
