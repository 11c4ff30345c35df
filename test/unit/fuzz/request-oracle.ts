// What a mutated routed call or schedule must do: validate, or be refused with an error naming the mutated field.
import { z } from 'zod';
import { InvalidRequestError } from '../../../src/client/errors';
import { planRoutedCall, validateCallInput } from '../../../src/client/switchyard-client';
import type { Config } from '../../../src/config/config';
import { resolveRoute, RouteResolutionError } from '../../../src/config/resolve-route';
import type { RoutedCallInputValue } from '../../../src/config/routed-call-input';
import { ScheduleDefinitionSchema } from '../../../src/config/schedule';
import { namesField, type Mutation, type Path } from './json-mutations';

/** An error `field` as the client reports it (`request.messages.0.content`) names one of `fields`. */
function fieldNamed(field: string, fields: readonly Path[]): boolean {
  return fields.some((expected) => {
    const text = expected.map(String).join('.');
    const parent = expected.slice(0, -1).map(String).join('.');
    return field === text || field.startsWith(`${text}.`) || (field === parent && expected.length > 0);
  });
}

/**
 * Fields an error may name for `mutation` of a routed call whose route sits at `routePath`: the mutated field,
 * for a target's provider or model, the pair (a provider without that model is reported at the model), and for a
 * message's role, that message's content.
 */
export function callFieldsFor(mutation: Mutation, routePath: Path = ['route']): Path[] {
  const relative = mutation.path.slice(routePath.length);
  const inRoute = namesField(mutation.path, routePath) && mutation.path.length >= routePath.length;
  if (inRoute && relative[0] === 'targets' && relative.length === 3) {
    return [mutation.path, [...routePath, ...relative.slice(0, 2)]];
  }
  // A message's role decides what its content may be: a new role may be refused at the content it no longer fits.
  if (mutation.path.at(-1) === 'role' && mutation.path.at(-3) === 'messages') {
    return [mutation.path, [...mutation.path.slice(0, -1), 'content']];
  }
  return [mutation.path];
}

function expectRefusal(error: unknown, fields: readonly Path[], heading: string): void {
  if (!(error instanceof InvalidRequestError)) throw error;
  if (!fieldNamed(error.field, fields)) {
    throw new Error(
      `refused at "${error.field}", which names none of ${fields.map((field) => field.join('.')).join(', ')}: ${error.message}`,
    );
  }
  expect(error.message).toContain(heading);
}

/** `validateCallInput` (what `SwitchyardClient.start` runs first) accepts `value` or names the field. */
export function checkCallInput(value: unknown, fields: readonly Path[]): void {
  try {
    validateCallInput(value as RoutedCallInputValue);
  } catch (error) {
    expectRefusal(error, fields, 'Invalid routed call');
  }
}

/** `planRoutedCall` against `config` (schema, then the route) plans `value` or names the field. */
export function checkPlannedCall(config: Config, value: unknown, fields: readonly Path[]): void {
  try {
    const plan = planRoutedCall(config, value as RoutedCallInputValue);
    for (const attempt of plan.attempts) expect(Number.isSafeInteger(attempt.boundNanoUsd)).toBe(true);
  } catch (error) {
    expectRefusal(error, fields, '');
  }
}

/**
 * Fields a schedule error may name: the mutated field, the pair of a target, and the fields checked together
 * (`every` / `cron` / `timezone`, the schedule's `budget` and its call's).
 */
export function scheduleFieldsFor(mutation: Mutation): Path[] {
  const fields = callFieldsFor(mutation, ['call', 'route']);
  const [first] = mutation.path;
  if (first === 'every' || first === 'cron' || first === 'timezone') {
    fields.push(['every'], ['cron'], ['timezone']);
  }
  if (first === 'budget' || (first === 'call' && mutation.path[1] === 'budget')) {
    fields.push(['budget'], ['call', 'budget']);
  }
  if (first === 'call' && mutation.path.length === 1) fields.push(['budget']);
  return fields;
}

/**
 * The checks `schedules.create` makes before creating anything: the schema (every issue must name one of
 * `fields`), then the call's route against `config` (a `RouteResolutionError` naming one of them).
 */
export function checkScheduleDefinition(config: Config, value: unknown, fields: readonly Path[]): void {
  const parsed = ScheduleDefinitionSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (!fields.some((field) => namesField(issue.path as Path, field))) {
        throw new Error(
          `schedule issue at ${z.core.toDotPath(issue.path)} names none of ${fields.map((field) => field.join('.')).join(', ')}`,
        );
      }
    }
    expect(z.prettifyError(parsed.error)).toContain('✖');
    return;
  }
  try {
    resolveRoute(config, parsed.data.call.route);
  } catch (error) {
    if (!(error instanceof RouteResolutionError)) throw error;
    if (!fieldNamed(`call.${error.field}`, fields)) {
      throw new Error(`route refused at call.${error.field}, not the mutated field: ${error.message}`);
    }
  }
}
