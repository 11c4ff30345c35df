// Renders attempts as a Markdown table for the Temporal UI's current details. Pure.
import { nanoToUsd } from './money';
import type { AttemptRecord } from './routing-record';

export function renderAttemptsMarkdown(routeName: string, attempts: readonly AttemptRecord[]): string {
  const header = [
    '| # | target | outcome | class | status | latency ms | cost USD |',
    '|---|---|---|---|---|---|---|',
  ];
  const rows = attempts.map((attempt) =>
    [
      attempt.attempt,
      `${attempt.provider}/${attempt.model}${attempt.retry ? ` (retry ${attempt.retry})` : ''}`,
      attempt.outcome,
      attempt.failureClass ?? attempt.skipReason ?? '',
      attempt.httpStatus ?? '',
      attempt.latencyMs,
      `${nanoToUsd(attempt.costNanoUsd).toFixed(6)}${attempt.costKnown ? '' : ' (bound)'}`,
    ].join(' | '),
  );
  return [`**Route** ${routeName}`, '', ...header, ...rows.map((row) => `| ${row} |`)].join('\n');
}
