// The application API for budget ledgers: read a scope's snapshot, set its limit. Node side.
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { z } from 'zod';
import { BudgetLimitChangeSchema, BudgetScopeSchema, type BudgetLimitChange } from '../config/budget';
import { firstIssueField, prettifyIssues } from '../config/strict-object';
import { limitChange } from '../routing/ledger-limits';
import type { LedgerSnapshot } from '../routing/ledger-snapshot';
import { DEFAULT_TASK_QUEUE, entityTaskQueue } from '../workflows/definitions';
import { ledgerWorkflowId, setLimitUpdate, snapshotQuery } from '../workflows/ledger/ledger-definitions';
import { ledgerStartOptions } from '../workflows/ledger/ledger-start';
import type { ledgerWorkflow } from '../workflows/ledger/ledger-workflow';
import { InvalidRequestError } from './errors';

export interface LedgersOptions {
  /** A connected Temporal client (see `connectClient`). */
  readonly client: Client;
  /**
   * Task queue a ledger created here runs on: the entities' queue, where workers serve breakers and ledgers
   * (`<calls' queue>-entities`), not the calls' queue. @default the entities' queue of `SWITCHYARD_TASK_QUEUE`,
   * else of 'switchyard': 'switchyard-entities'
   */
  readonly taskQueue?: string;
}

/** Creates the scope's ledger if it does not run yet, for update-with-start. */
function ledgerStartOperation(
  scope: string,
  taskQueue: string,
): WithStartWorkflowOperation<typeof ledgerWorkflow> {
  return new WithStartWorkflowOperation<typeof ledgerWorkflow>(
    'ledgerWorkflow',
    ledgerStartOptions(scope, taskQueue),
  );
}

function validScope(scope: string): string {
  const parsed = BudgetScopeSchema.safeParse(scope);
  if (!parsed.success)
    throw new InvalidRequestError(`Invalid budget scope:\n${z.prettifyError(parsed.error)}`, 'scope');
  return parsed.data;
}

export class Ledgers {
  readonly taskQueue: string;

  constructor(private readonly options: LedgersOptions) {
    // A ledger started on the calls' queue would be served by no entity worker, and every update would wait.
    this.taskQueue =
      options.taskQueue ?? entityTaskQueue(process.env.SWITCHYARD_TASK_QUEUE ?? DEFAULT_TASK_QUEUE);
  }

  /**
   * The scope's limit, spend, reservations and window, or `undefined` when the scope has no ledger yet (no
   * call reserved on it and no limit was set: it is unlimited and nothing was spent). Needs a running worker.
   */
  async get(scope: string): Promise<LedgerSnapshot | undefined> {
    const handle = this.options.client.workflow.getHandle(ledgerWorkflowId(validScope(scope)));
    try {
      return await handle.query(snapshotQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Sets the scope's limit as an operator, creating its ledger if needed, and returns the snapshot after the
   * change. The limit holds until the config file's declaration for the scope changes (latest change wins).
   * Spend so far is kept; a new period starts its window at the current day or month (UTC).
   */
  async setLimit(scope: string, change: BudgetLimitChange): Promise<LedgerSnapshot> {
    const validScopeName = validScope(scope);
    const parsed = BudgetLimitChangeSchema.safeParse(change);
    if (!parsed.success) {
      throw new InvalidRequestError(
        `Invalid budget limit:\n${prettifyIssues(parsed.error)}`,
        firstIssueField(parsed.error),
      );
    }
    return this.options.client.workflow.executeUpdateWithStart(setLimitUpdate, {
      args: [limitChange(parsed.data)],
      startWorkflowOperation: ledgerStartOperation(validScopeName, this.taskQueue),
    });
  }
}
