// A scope's ledger once every reservation on it is closed. Test side.
import type { Ledgers } from '../../src/client/ledgers';
import type { LedgerSnapshot } from '../../src/routing/ledger-snapshot';
import { eventually } from './eventually';

/**
 * An attempt's worker settles after the call returned (the call never waits for the ledger), so a read straight
 * after a call may still see its reservation open for a moment: this waits until nothing is reserved.
 */
export function settledLedger(ledgers: Ledgers, scope: string): Promise<LedgerSnapshot> {
  return eventually(
    `ledger ${scope} with nothing reserved`,
    async () => ledgers.get(scope),
    (snapshot): snapshot is LedgerSnapshot =>
      snapshot !== undefined && snapshot.openReservations.length === 0,
    { timeoutMs: 30_000 },
  ) as Promise<LedgerSnapshot>;
}
