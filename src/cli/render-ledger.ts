// Renders a budget ledger snapshot (limit, window, spend, open reservations) for the terminal. Pure.
import type { LedgerSnapshot } from '../routing/ledger-snapshot';
import { formatUsd } from './render-routing-record';
import { renderFields, renderTable } from './text-table';

function describeLimit(snapshot: LedgerSnapshot): string {
  if (snapshot.limitNanoUsd === null) return 'unlimited (spend is tracked, nothing is refused)';
  const per = snapshot.period ? ` per ${snapshot.period} (UTC)` : ' (no period: it never resets)';
  const source = snapshot.limitSource === 'config' ? 'from the config file' : 'set by an operator';
  return `${formatUsd(snapshot.limitNanoUsd)} USD${per}, ${source}`;
}

export function renderLedger(snapshot: LedgerSnapshot): string {
  const open = snapshot.openReservations.length;
  const { totals, previousWindow: previous } = snapshot;
  const fields = renderFields([
    ['scope', snapshot.scope],
    ['limit', describeLimit(snapshot)],
    [
      'window',
      `since ${snapshot.windowStartedAt}${snapshot.nextResetAt ? `, resets ${snapshot.nextResetAt}` : ''}`,
    ],
    ['spent', `${formatUsd(snapshot.spentNanoUsd)} USD`],
    [
      'reserved',
      `${formatUsd(snapshot.reservedNanoUsd)} USD in ${open} open reservation${open === 1 ? '' : 's'}`,
    ],
    [
      'available',
      snapshot.availableNanoUsd === null ? 'unlimited' : `${formatUsd(snapshot.availableNanoUsd)} USD`,
    ],
    ['overdraft', `${formatUsd(snapshot.overdraftNanoUsd)} USD (charged beyond reservations this window)`],
    [
      'totals',
      `${totals.granted} granted, ${totals.settled} settled, ${totals.released} released, ${totals.expired} expired, ` +
        `${totals.overdrafts} overdrawn`,
    ],
    ...(previous
      ? [
          [
            'previous window',
            `${formatUsd(previous.spentNanoUsd)} USD spent, ${previous.startedAt} to ${previous.endedAt}`,
          ] as const,
        ]
      : []),
  ]);
  if (!open) return `${fields}\n`;
  const table = renderTable(
    [
      { header: 'reservation' },
      { header: 'amount USD', align: 'right' },
      { header: 'holder' },
      { header: 'lease expires' },
    ],
    snapshot.openReservations.map((reservation) => [
      reservation.reservationId,
      formatUsd(reservation.amountNanoUsd),
      reservation.holder,
      reservation.leaseExpiresAt,
    ]),
  );
  return `${fields}\n\n${table}\n`;
}
