// `switchyard breakers`: list circuit breakers, show one with its transitions, or reset one. Node side.
import type { BreakerView, UnreadableBreaker } from '../../client/breakers';
import type { JudgedBreakerPolicy } from '../../routing/breaker-judgement';
import { parseBreakerKey } from '../../routing/breaker-state';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import type { Command } from '../command';
import { ExitCode } from '../exit-codes';
import { nonEmptyFlag } from '../flag-values';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { renderFields, renderTable } from '../text-table';

const OUTPUT_FLAGS = {
  json: {
    type: 'boolean',
    description: 'print the breakers (or the one shown or reset) as JSON instead of a table',
  },
} as const satisfies FlagTable;

const LIST_FLAGS = {
  provider: {
    type: 'string',
    valueName: '<name>',
    description: 'list only the breakers of this provider (list only; default: every provider)',
  },
} as const satisfies FlagTable;

const RESET_FLAGS = {
  reason: {
    type: 'string',
    valueName: '<text>',
    description:
      'why the breaker is reset, kept in its transition log (reset only; default: "reset by an operator")',
  },
} as const satisfies FlagTable;

const FLAGS = { ...OUTPUT_FLAGS, ...LIST_FLAGS, ...RESET_FLAGS, ...GLOBAL_FLAGS } satisfies FlagTable;

const HELP = renderHelp({
  usage: [
    'switchyard breakers [--provider <name>] [options]',
    'switchyard breakers show <provider/model> [options]',
    'switchyard breakers reset <provider/model> [--reason <text>] [options]',
  ],
  description: [
    'Lists the circuit breakers: one per provider/model, shared by every route. The counts are shared; each',
    'route judges them by its own policy (threshold/cooldown), so one route may skip a target another still',
    'calls. STATUS is the judgement of the strictest policy seen: closed (calls go through), open (skipped',
    'until a cooldown passes) or half_open (one call, of any route, is probing it); POLICIES shows every',
    'policy seen. Only keys that ever saw a counted failure have a breaker; every other key is closed. "show"',
    'prints one breaker with its policies and transitions; "reset" closes it at once for every route, and',
    'workers notice within their hint TTL (SWITCHYARD_BREAKER_HINT_TTL_MS, default 1 s). Reading a breaker',
    'needs a running worker.',
  ],
  sections: [
    { title: 'Output', flags: OUTPUT_FLAGS },
    { title: 'List', flags: LIST_FLAGS },
    { title: 'Reset', flags: RESET_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard breakers',
    'switchyard breakers --provider openai',
    'switchyard breakers --json | jq \'.[] | select(.state.status != "closed") | .key\'',
    'switchyard breakers show openai/gpt-4o',
    'switchyard breakers reset anthropic/claude-haiku-4-5 --reason "status page green"',
  ],
  notes: [EXIT_CODES_NOTE],
});

/** `in 12 s` / `3 s ago`, rounded to a readable unit. */
export function relativeTime(epochMs: number, nowMs: number): string {
  const deltaSeconds = Math.round((epochMs - nowMs) / 1000);
  const magnitude = Math.abs(deltaSeconds);
  const amount =
    magnitude < 120
      ? `${magnitude} s`
      : magnitude < 7_200
        ? `${Math.round(magnitude / 60)} min`
        : `${Math.round(magnitude / 3_600)} h`;
  if (magnitude === 0) return 'now';
  return deltaSeconds > 0 ? `in ${amount}` : `${amount} ago`;
}

/**
 * The status with what it means right now: an open breaker whose cooldown has passed takes a probe next; a target
 * paused by a provider's Retry-After is skipped by every caller until the pause ends, whatever the status.
 */
function statusLabel(view: BreakerView, nowMs: number): string {
  const { state } = view;
  const paused = pausedFor(view, nowMs);
  const status =
    state.status === 'open' && state.reopenAtMs !== undefined && state.reopenAtMs <= nowMs
      ? 'open (probe due)'
      : state.status === 'half_open' && !state.probe
        ? 'half_open (probe free)'
        : state.status;
  return paused ? `${status}, paused ${paused}` : status;
}

/** `until in 12 s` while a Retry-After pause runs, else empty. */
function pausedFor(view: BreakerView, nowMs: number): string {
  const until = view.state.pausedUntilMs;
  return until !== undefined && until > nowMs ? `until ${relativeTime(until, nowMs)}` : '';
}

/** `30s`, `500ms`, `2min`: a cooldown as the table shows it. */
function shortDuration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0 && milliseconds >= 120_000) return `${milliseconds / 60_000}min`;
  if (milliseconds % 1000 === 0) return `${milliseconds / 1000}s`;
  return `${milliseconds}ms`;
}

/** `2/30s`: a policy's threshold and cooldown. */
export function policyLabel(policy: Pick<JudgedBreakerPolicy, 'failureThreshold' | 'cooldownMs'>): string {
  return `${policy.failureThreshold}/${shortDuration(policy.cooldownMs)}`;
}

/** How one policy judges the breaker now: an open one whose cooldown has passed may take the probe next. */
function policyStatus(policy: JudgedBreakerPolicy, nowMs: number): string {
  if (policy.status === 'open' && policy.probeAtMs !== undefined && policy.probeAtMs <= nowMs)
    return 'open (probe due)';
  return policy.status;
}

/** `2/30s open · 5/30s closed`: every seen policy with its judgement, strictest first. */
function policiesCell(view: BreakerView, nowMs: number): string {
  return view.policies.map((policy) => `${policyLabel(policy)} ${policyStatus(policy, nowMs)}`).join(' · ');
}

function nextProbe(view: BreakerView, nowMs: number): string {
  const { state } = view;
  if (state.status === 'open' && state.reopenAtMs !== undefined) return relativeTime(state.reopenAtMs, nowMs);
  if (state.status === 'half_open' && state.probe)
    return `lease ends ${relativeTime(state.probe.leaseExpiresAtMs, nowMs)}`;
  return '';
}

export function renderBreakerTable(
  views: readonly (BreakerView | UnreadableBreaker)[],
  nowMs: number,
): string {
  if (views.length === 0)
    return 'No breakers: no provider/model has recorded a counted failure, so every one is closed.\n';
  const rows = views.map((view) => {
    if ('readError' in view) return [view.key, 'unknown', '', '', '', '', view.readError];
    const last = view.state.transitions[view.state.transitions.length - 1];
    return [
      view.key,
      statusLabel(view, nowMs),
      String(view.state.consecutiveFailures),
      view.state.lastFailureClass ?? '',
      nextProbe(view, nowMs),
      policiesCell(view, nowMs),
      last ? `${last.from} → ${last.to} (${last.reason}) ${relativeTime(Date.parse(last.at), nowMs)}` : '',
    ];
  });
  const columns = [
    { header: 'BREAKER' },
    { header: 'STATUS' },
    { header: 'FAILURES', align: 'right' as const },
    { header: 'LAST FAILURE' },
    { header: 'NEXT PROBE' },
    { header: 'POLICIES' },
    { header: 'LAST TRANSITION' },
  ];
  return `${renderTable(columns, rows)}\n`;
}

export function renderBreakerDetails(view: BreakerView, nowMs: number): string {
  const { state } = view;
  const fields: [string, string][] = [
    ['breaker', view.key],
    ['status', `${statusLabel(view, nowMs)} (as the strictest policy seen judges it)`],
    ['consecutive failures', String(state.consecutiveFailures)],
  ];
  if (state.streakStartedAtMs !== undefined)
    fields.push(['failing since', relativeTime(state.streakStartedAtMs, nowMs)]);
  if (state.lastFailureClass) {
    const when =
      state.lastFailureAtMs !== undefined ? ` (${relativeTime(state.lastFailureAtMs, nowMs)})` : '';
    fields.push(['last failure', `${state.lastFailureClass}${when}`]);
  }
  if (state.openedAtMs !== undefined) fields.push(['opened', relativeTime(state.openedAtMs, nowMs)]);
  if (nextProbe(view, nowMs)) fields.push(['next probe', nextProbe(view, nowMs)]);
  if (state.probe) fields.push(['probe held by', state.probe.holder]);
  if (pausedFor(view, nowMs)) fields.push(['paused', `${pausedFor(view, nowMs)} (a provider's Retry-After)`]);
  const counts = Object.entries(state.counts)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
  fields.push(['counts', counts]);
  fields.push([
    'workflow',
    view.exists
      ? `${view.workflowId} (run ${view.generation + 1}, ${view.historyLength} events)`
      : 'none (never failed)',
  ]);

  const policies = view.policies.length
    ? renderTable(
        [
          { header: 'POLICY' },
          { header: 'THRESHOLD', align: 'right' as const },
          { header: 'COOLDOWN', align: 'right' as const },
          { header: 'JUDGES IT' },
          { header: 'PROBE FROM' },
          { header: 'LAST SEEN' },
        ],
        view.policies.map((policy) => [
          policyLabel(policy),
          String(policy.failureThreshold),
          shortDuration(policy.cooldownMs),
          policyStatus(policy, nowMs),
          policy.probeAtMs !== undefined ? relativeTime(policy.probeAtMs, nowMs) : '',
          relativeTime(policy.lastSeenAtMs, nowMs),
        ]),
      )
    : 'No route policy seen yet.';
  const transitions = state.transitions.length
    ? renderTable(
        [
          { header: 'AT' },
          { header: 'FROM' },
          { header: 'TO' },
          { header: 'REASON' },
          { header: 'BY' },
          { header: 'DETAIL' },
        ],
        state.transitions.map((transition) => [
          transition.at,
          transition.from,
          transition.to,
          transition.reason,
          transition.by ?? '',
          transition.detail ?? '',
        ]),
      )
    : 'No transitions.';
  return `${renderFields(fields)}\n\n${policies}\n\n${transitions}\n`;
}

function readKey(positional: string | undefined, verb: string): string {
  if (positional === undefined) throw new UsageError(`missing the <provider/model> to ${verb}`);
  if (!parseBreakerKey(positional))
    throw new UsageError(`a breaker is named "provider/model", got "${positional}"`);
  return positional;
}

export const breakersCommand: Command = {
  name: 'breakers',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const json = booleanFlag(parsed, 'json');
    const reason = nonEmptyFlag('reason', stringFlag(parsed, 'reason'));
    const provider = nonEmptyFlag('provider', stringFlag(parsed, 'provider'));
    const [action, target, ...extra] = parsed.positionals;
    if (action !== undefined && action !== 'show' && action !== 'reset' && action !== 'list') {
      throw new UsageError(`unknown action "${action}" (actions: list, show, reset)`);
    }
    if (action === undefined || action === 'list') {
      if (target !== undefined)
        throw new UsageError(`"breakers${action ? ' list' : ''}" takes no argument, got "${target}"`);
    } else if (extra.length) {
      throw new UsageError(`expected one <provider/model>, got ${parsed.positionals.length - 1}`);
    }
    if (reason !== undefined && action !== 'reset')
      throw new UsageError('--reason applies to "breakers reset" only');
    if (provider !== undefined && action !== undefined && action !== 'list') {
      throw new UsageError('--provider applies to the list only');
    }
    const key = action === 'show' || action === 'reset' ? readKey(target, action) : undefined;

    // Loaded once the arguments are checked: the Temporal client is most of this command's start-up.
    const { connectSwitchyard, isTemporalUnavailable } =
      require('../connect-temporal') as typeof import('../connect-temporal');
    const { Breakers } = require('../../client/breakers') as typeof import('../../client/breakers');
    const connection = await connectSwitchyard(globals);
    try {
      const breakers = new Breakers(connection.temporal);
      if (action === 'reset') {
        const view = await breakers.reset(key!, {
          by: 'cli',
          ...(reason !== undefined ? { detail: reason } : {}),
        });
        if (json) io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
        else if (!view.exists)
          io.stdout.write(`${key} has no breaker (it never failed): it is closed already.\n`);
        else io.stdout.write(`${key} reset: closed.\n`);
        return ExitCode.ok;
      }
      if (action === 'show') {
        const view = await breakers.get(key!);
        io.stdout.write(json ? `${JSON.stringify(view, null, 2)}\n` : renderBreakerDetails(view, Date.now()));
        return ExitCode.ok;
      }
      const views = await breakers.list(provider !== undefined ? { provider } : {});
      io.stdout.write(json ? `${JSON.stringify(views, null, 2)}\n` : renderBreakerTable(views, Date.now()));
      return ExitCode.ok;
    } catch (error) {
      if (isTemporalUnavailable(error)) throw temporalUnreachable(globals, error);
      throw error;
    } finally {
      await connection.close();
    }
  },
};
