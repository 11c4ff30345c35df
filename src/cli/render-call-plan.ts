// Renders a call plan (attempt order, timeouts, cost bounds) as a terminal table. Pure.
import { addNano } from '../routing/money';
import type { CallPlan } from '../routing/call-plan';
import { formatUsd } from './render-routing-record';
import { renderFields, renderTable } from './text-table';

export function renderCallPlan(plan: CallPlan): string {
  const worstCase = addNano(...plan.attempts.map((attempt) => attempt.boundNanoUsd));
  const fields = renderFields([
    ['route', plan.route],
    ['input bound', `${plan.estimatedInputTokens} tokens at most (UTF-8 bytes + provider overhead)`],
    ['max output', `${plan.maxOutputTokens} tokens`],
    ['deadline', plan.deadlineMs !== undefined ? `${plan.deadlineMs} ms` : 'none'],
    ['fails over on', plan.failoverOn.join(', ') || 'nothing'],
    ['strategy', plan.explanation.strategy],
    ['order', plan.explanation.reason],
    ...plan.explanation.rejected.map(
      (verdict) => ['rejected', `${verdict.candidate}: ${verdict.reason}`] as const,
    ),
    ['worst case', `${formatUsd(worstCase)} USD if every planned attempt is made`],
  ]);
  const table = renderTable(
    [
      { header: '#', align: 'right' },
      { header: 'target' },
      { header: 'retry', align: 'right' },
      { header: 'timeout ms', align: 'right' },
      { header: 'bound USD', align: 'right' },
      { header: 'note' },
    ],
    plan.attempts.map((attempt) => [
      String(attempt.attempt),
      `${attempt.provider}/${attempt.model}${attempt.via !== undefined ? ` (route:${attempt.via})` : ''}`,
      String(attempt.retry),
      String(attempt.timeoutMs),
      formatUsd(attempt.boundNanoUsd),
      attempt.skip ? `skipped: ${attempt.skip.message}` : '',
    ]),
  );
  return `${fields}\n\n${table}\n`;
}
