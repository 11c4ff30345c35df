// A change to an existing schedule and how it combines with the current definition. Pure (client side).
import type {
  DeliverySpec,
  OverlapPolicy,
  ScheduleDefinition,
  ScheduleDefinitionInput,
} from '../config/schedule';
import type { RoutedCallInputValue } from '../config/routed-call-input';

/** What `schedules.update` changes; every field left out keeps its current value, and `null` removes one. */
export interface ScheduleChange {
  /** Switch to (or change) an interval, in milliseconds or text like `2h`; drops the cron expression. */
  readonly every?: number | string;
  /** Switch to (or change) a cron expression; drops the interval. */
  readonly cron?: string;
  /** Time zone of the cron expression; `null` goes back to UTC. */
  readonly timezone?: string | null;
  /**
   * Replaces the routed call. Its budget scope and patience stay as they were unless the new call names
   * its own (or `budget` changes them).
   */
  readonly call?: RoutedCallInputValue;
  /** Budget scope of every run; `null` charges none. */
  readonly budget?: string | null;
  readonly note?: string | null;
  readonly overlap?: OverlapPolicy;
  /** In milliseconds or text like `10m`. */
  readonly catchupWindow?: number | string;
  /** Replaces the delivery; `null` stops delivering (results stay listable in Temporal). */
  readonly deliver?: DeliverySpec | null;
  readonly paused?: boolean;
}

/** The definition `change` asks for, ready to be validated again like a new one. */
export function applyScheduleChange(
  current: ScheduleDefinition,
  change: ScheduleChange,
): ScheduleDefinitionInput {
  let when: Pick<ScheduleDefinitionInput, 'every' | 'cron' | 'timezone'>;
  if (change.every !== undefined) {
    when = { every: change.every };
  } else if (change.cron !== undefined) {
    when = { cron: change.cron };
    if (current.timezone !== undefined) when = { ...when, timezone: current.timezone };
  } else {
    when = current.every !== undefined ? { every: current.every } : { cron: current.cron };
    if (current.timezone !== undefined) when = { ...when, timezone: current.timezone };
  }
  if (change.timezone !== undefined) {
    const { timezone: _dropped, ...rest } = when;
    when = change.timezone === null ? rest : { ...rest, timezone: change.timezone };
  }

  const { budget: currentBudget, patienceMs: currentPatienceMs, ...currentCall } = current.call;
  const call: RoutedCallInputValue = change.call ?? currentCall;
  const budget = change.budget !== undefined ? change.budget : (change.call?.budget ?? currentBudget);
  const patienceMs = call.patienceMs ?? currentPatienceMs;
  const { budget: _callBudget, ...callWithoutBudget } = call;

  const note = change.note !== undefined ? change.note : current.note;
  const deliver = change.deliver !== undefined ? change.deliver : current.deliver;
  return {
    id: current.id,
    ...when,
    call: {
      ...callWithoutBudget,
      ...(budget !== null && budget !== undefined ? { budget } : {}),
      ...(patienceMs !== undefined ? { patienceMs } : {}),
    },
    ...(note !== null && note !== undefined ? { note } : {}),
    overlap: change.overlap ?? current.overlap,
    catchupWindow: change.catchupWindow ?? current.catchupWindow,
    ...(deliver !== null && deliver !== undefined ? { deliver } : {}),
    paused: change.paused ?? current.paused,
  };
}
