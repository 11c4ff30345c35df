// Renders schedules and their runs as terminal tables. Pure.
import { messageText } from '../config/conversation';
import type { ScheduledRun, ScheduleView } from '../client/schedules';
import { formatDuration } from '../config/duration';
import type { DeliveryReport, DeliveryResult } from '../workflows/scheduled-generation/definitions';
import { webhookOrigin } from '../workflows/scheduled-generation/definitions';
import { formatUsd } from './render-routing-record';
import { renderFields, renderTable } from './text-table';

/** `every 1h` or `cron 0 9 * * 1-5 (Europe/Berlin)`. */
export function describeWhen(view: Pick<ScheduleView, 'every' | 'cron' | 'timezone'>): string {
  if (view.every !== undefined) return `every ${formatDuration(view.every)}`;
  return `cron ${view.cron ?? '?'}${view.timezone ? ` (${view.timezone})` : ' (UTC)'}`;
}

function routeOf(view: ScheduleView): string {
  const route = view.call.route;
  return typeof route === 'string' ? route : route ? 'inline' : 'default';
}

/** The first line of the prompt, shortened: enough to recognise a schedule, not to print a document. */
export function promptPreview(view: ScheduleView, width = 60): string {
  const last = view.call.request.messages[view.call.request.messages.length - 1];
  const line = (last ? messageText(last) : '').split('\n')[0] ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function deliveryTargets(view: ScheduleView): string {
  const targets = [
    view.deliver?.webhookUrl !== undefined ? `webhook ${webhookOrigin(view.deliver.webhookUrl)}` : undefined,
    view.deliver?.directory !== undefined ? `directory ${view.deliver.directory}` : undefined,
  ].filter((target): target is string => target !== undefined);
  return targets.length ? targets.join(', ') : 'none (results stay in Temporal)';
}

export function renderScheduleTable(views: readonly ScheduleView[]): string {
  if (views.length === 0) return 'No schedules.\n';
  const rows = views.map((view) => [
    view.id,
    view.paused ? 'paused' : 'active',
    describeWhen(view),
    routeOf(view),
    view.nextRunTimes[0]?.toISOString() ?? '',
    String(view.runsTaken),
    view.note ?? '',
  ]);
  const columns = [
    { header: 'SCHEDULE' },
    { header: 'STATUS' },
    { header: 'WHEN' },
    { header: 'ROUTE' },
    { header: 'NEXT RUN' },
    { header: 'RUNS', align: 'right' as const },
    { header: 'NOTE' },
  ];
  return `${renderTable(columns, rows)}\n`;
}

export function renderScheduleDetails(view: ScheduleView): string {
  const fields: [string, string][] = [
    ['schedule', view.id],
    ['status', view.paused ? 'paused' : 'active'],
    ['when', describeWhen(view)],
    ['route', routeOf(view)],
    ['prompt', promptPreview(view)],
    ['max output tokens', String(view.call.request.maxOutputTokens)],
    ['budget', view.call.budget ?? 'none'],
    ['patience', view.call.patienceMs !== undefined ? formatDuration(view.call.patienceMs) : 'none'],
    ['overlap', view.overlap],
    ['catch-up window', formatDuration(view.catchupWindow)],
    ['deliver', deliveryTargets(view)],
  ];
  if (view.note) fields.push(['note', view.note]);
  fields.push(
    [
      'next runs',
      view.nextRunTimes
        .slice(0, 3)
        .map((time) => time.toISOString())
        .join(', ') || 'none',
    ],
    [
      'runs',
      `${view.runsTaken} taken, ${view.runsSkippedByOverlap} skipped by overlap, ` +
        `${view.runsMissedCatchupWindow} missed the catch-up window`,
    ],
  );
  if (view.runningWorkflowIds.length) fields.push(['running', view.runningWorkflowIds.join(', ')]);
  const last = view.recentRuns[0];
  if (last) fields.push(['last run', `${last.workflowId} at ${last.takenAt.toISOString()}`]);
  fields.push(['task queue', view.taskQueue], ['created', view.createdAt.toISOString()]);
  return `${renderFields(fields)}\n`;
}

function deliveryCell(result: DeliveryResult | undefined, kind: string): string | undefined {
  if (!result) return undefined;
  return result.delivered ? `${kind} ok` : `${kind} failed`;
}

function deliveryColumn(report: DeliveryReport | undefined): string {
  return [deliveryCell(report?.webhook, 'webhook'), deliveryCell(report?.directory, 'file')]
    .filter((cell): cell is string => cell !== undefined)
    .join(', ');
}

export function renderScheduledRuns(runs: readonly ScheduledRun[]): string {
  if (runs.length === 0) return 'No runs yet (a run that just started may take a moment to be listed).\n';
  const rows = runs.map((run) => {
    const outcome = run.error
      ? run.error.type
      : run.status === 'COMPLETED'
        ? 'succeeded'
        : run.status.toLowerCase();
    const servedBy = run.record?.servedBy
      ? `${run.record.servedBy.provider}/${run.record.servedBy.model}`
      : '';
    return [
      run.startedAt.toISOString(),
      outcome,
      servedBy,
      run.record ? formatUsd(run.record.totalCostNanoUsd) : '',
      deliveryColumn(run.delivery),
      run.workflowId,
    ];
  });
  const columns = [
    { header: 'STARTED' },
    { header: 'OUTCOME' },
    { header: 'SERVED BY' },
    { header: 'COST USD', align: 'right' as const },
    { header: 'DELIVERY' },
    { header: 'WORKFLOW' },
  ];
  return `${renderTable(columns, rows)}\n`;
}
