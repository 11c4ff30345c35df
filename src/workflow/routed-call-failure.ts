// RoutedCallFailure: what routedCall throws in a user's workflow when the call ends without an answer. Workflow code.
import { ApplicationFailure } from '@temporalio/workflow';
import type { RoutingRecord } from '../routing/routing-record';
import type { ChildCallFailure, ChildCallFailureType } from '../workflows/routed-call-child';

/**
 * A routed call made with `routedCall` ended without an answer. It is an `ApplicationFailure` with the call's
 * own `type` and `details` (the routing record first), so a workflow that does not catch it fails exactly as
 * the routed call did, and a caller of that workflow reads the same typed failure.
 */
export class RoutedCallFailure extends ApplicationFailure {
  /** `AllTargetsFailed`, `BudgetExceeded`, `CircuitOpen`, …, `Cancelled`; `Terminated` / `TimedOut` from outside. */
  declare readonly type: ChildCallFailureType;
  /** The request field at fault when `type` is `InvalidRequest` (e.g. `request.messages`). */
  readonly field: string | undefined;

  constructor(
    message: string,
    type: ChildCallFailureType,
    details: unknown[],
    nonRetryable: boolean,
    /** The routed call's workflow id (`switchyard show <id>` prints its record). */
    readonly workflowId: string,
    /** Every attempt the call made; absent when it failed before resolving its route. */
    readonly record: RoutingRecord | undefined,
  ) {
    super(message, type, nonRetryable, details);
    const first = details[0] as { field?: unknown } | undefined;
    this.field = typeof first?.field === 'string' ? first.field : undefined;
  }

  /** The failure of the call `workflowId`, read from its child-workflow failure or the join's outcome. */
  static of(failure: ChildCallFailure, workflowId: string): RoutedCallFailure {
    return new RoutedCallFailure(
      failure.message,
      failure.type,
      failure.details,
      failure.nonRetryable,
      workflowId,
      failure.record ?? undefined,
    );
  }
}

// ApplicationFailure pins `name` on its prototype; this class's errors say what they are in logs and stacks.
Object.defineProperty(RoutedCallFailure.prototype, 'name', { value: 'RoutedCallFailure' });
