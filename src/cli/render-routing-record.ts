// Renders a routing record, or the attempts so far, as terminal tables; money in USD. Pure.
import { nanoToUsd } from '../routing/money';
import type { AttemptRecord, RoutingExplanation, RoutingRecord } from '../routing/routing-record';
import { renderFields, renderTable, type Column } from './text-table';

/** Nano-USD as USD with six decimals: a millionth of a dollar is the smallest amount worth showing. */
export function formatUsd(nanoUsd: number): string {
  return nanoToUsd(nanoUsd).toFixed(6);
}

/** A cost, marked `(bound)` when usage was unknown and the worst case was charged instead. */
export function formatCost(nanoUsd: number, known: boolean): string {
  return known ? formatUsd(nanoUsd) : `${formatUsd(nanoUsd)} (bound)`;
}

const ATTEMPT_COLUMNS: readonly Column[] = [
  { header: '#', align: 'right' },
  { header: 'target' },
  { header: 'retry', align: 'right' },
  { header: 'outcome' },
  { header: 'reason' },
  { header: 'http', align: 'right' },
  { header: 'latency ms', align: 'right' },
  { header: 'cost USD' },
  { header: 'detail' },
];

function attemptDetail(attempt: AttemptRecord): string {
  const parts = [attempt.message ?? attempt.providerCode];
  if (attempt.retryAfterMs !== undefined) parts.push(`retry after ${attempt.retryAfterMs} ms`);
  return parts.filter((part): part is string => Boolean(part)).join('; ');
}

/** One row per attempt; `emptyText` stands in when there is none. */
export function renderAttemptsTable(attempts: readonly AttemptRecord[], emptyText = '(no attempts)'): string {
  if (attempts.length === 0) return emptyText;
  return renderTable(
    ATTEMPT_COLUMNS,
    attempts.map((attempt) => [
      String(attempt.attempt),
      `${attempt.provider}/${attempt.model}`,
      String(attempt.retry),
      attempt.outcome,
      attempt.failureClass ?? attempt.skipReason ?? '',
      attempt.httpStatus !== undefined ? String(attempt.httpStatus) : '',
      String(attempt.latencyMs),
      formatCost(attempt.costNanoUsd, attempt.costKnown),
      attemptDetail(attempt),
    ]),
  );
}

/** The explanation in short: the strategy's reason, and each rejection (skips are in the attempts table). */
function explanationFields(
  explanation: RoutingExplanation | undefined,
): (readonly [label: string, value: string])[] {
  if (!explanation) return [];
  return [
    ['why', explanation.reason],
    ...explanation.rejected.map(
      (verdict) => ['rejected', `${verdict.candidate}: ${verdict.reason}`] as const,
    ),
  ];
}

/**
 * The record's summary fields and its attempts table. `leadingFields` (e.g. the call's status) go first in
 * the same aligned block.
 */
export function renderRoutingRecord(
  record: RoutingRecord,
  leadingFields: readonly (readonly [label: string, value: string])[] = [],
): string {
  const servedBy = record.servedBy
    ? `${record.servedBy.provider}/${record.servedBy.model} (target ${record.servedBy.targetIndex + 1})`
    : 'none';
  const anyBound = record.attempts.some((attempt) => !attempt.costKnown);
  const fields = renderFields([
    ...leadingFields,
    ['route', record.route],
    ['workflow', record.workflowId],
    ['served by', servedBy],
    ['fallbacks', String(record.fallbacks)],
    ['total cost', `${formatUsd(record.totalCostNanoUsd)} USD${anyBound ? ' (includes bounds)' : ''}`],
    ...explanationFields(record.explanation),
  ]);
  return `${fields}\n\n${renderAttemptsTable(record.attempts)}\n`;
}
