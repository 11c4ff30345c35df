// How a scope's ledger is started when an update finds none: one home for the client's and the workers' starts. Types and values only; no I/O.
import { ledgerWorkflowId, type LedgerWorkflowInput } from './ledger-definitions';

/**
 * The start options of a scope's ledger, for update-with-start (`WithStartWorkflowOperation`): a scope's ledger
 * is created by whichever comes first, a reservation (from a worker) or a limit (from an operator), and both
 * must start the same workflow the same way.
 */
export function ledgerStartOptions(scope: string, taskQueue: string) {
  return {
    workflowId: ledgerWorkflowId(scope),
    taskQueue,
    args: [{ scope }] as [LedgerWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    staticSummary: `budget ledger ${scope}`,
  };
}
