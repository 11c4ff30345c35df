// A schedule definition read from flags, checked before connecting; a refusal names the field and its flag. Node side.
import { ScheduleDefinitionSchema, type ScheduleDefinitionInput } from '../config/schedule';
import { firstIssueField, prettifyIssues } from '../config/strict-object';
import { UsageError } from './cli-errors';

/** Schedule-definition fields and the flag that sets each, so a refused definition names what to change. */
const FLAG_BY_SCHEDULE_FIELD: readonly (readonly [field: string, flag: string])[] = [
  ['id', 'the schedule <id>'],
  ['every', '--every'],
  ['cron', '--cron'],
  ['timezone', '--timezone'],
  ['overlap', '--overlap'],
  ['catchupWindow', '--catchup-window'],
  ['note', '--note'],
  ['budget', '--budget'],
  ['deliver.webhookUrl', '--deliver-webhook'],
  ['deliver.directory', '--deliver-dir'],
  ['deliver', '--deliver-webhook / --deliver-dir'],
  ['call.request.messages', '--prompt / --file / --request'],
  ['call.request.system', '--system'],
  ['call.request.maxOutputTokens', '--max-output-tokens'],
  ['call.request.temperature', '--temperature'],
  ['call.route', '--route'],
  ['call.budget', '--budget'],
  ['call.deadlineMs', '--deadline-ms'],
  ['call.maxCostUsd', '--max-cost-usd'],
  ['call.patienceMs', '--patience'],
  ['call', '--request'],
];

/**
 * Checks a definition against the schema `schedules.create` applies, so a bad cron expression, time zone,
 * interval or request file is refused before connecting; the message names the field and the flag behind it.
 */
export function checkDefinition(definition: ScheduleDefinitionInput): ScheduleDefinitionInput {
  const parsed = ScheduleDefinitionSchema.safeParse(definition);
  if (parsed.success) return definition;
  const field = firstIssueField(parsed.error);
  const flag = FLAG_BY_SCHEDULE_FIELD.find(
    ([prefix]) => field === prefix || field.startsWith(`${prefix}.`),
  )?.[1];
  throw new UsageError(
    `invalid request at ${field || 'its root'}${flag ? ` (${flag})` : ''}:\n${prettifyIssues(parsed.error)}`,
  );
}
