// The order a routed call tries its route's candidates in, and the candidates its requirements reject: a pure
// rule of the strategy over state the workflow read from history (bounds, measurements, a draw). Workflow-safe.
import { routeCandidates, type ResolvedRoute, type RouteCandidate } from '../config/resolved-route';
import type { RoutingStrategy } from '../config/route';
import type { RoutingRequirements } from '../config/routed-call-input';
import { nanoToUsd, usdToNanoFloor, type NanoUsd } from './money';
import type { CandidateVerdict } from './routing-record';
import type { TargetObservation } from './target-observation';

/** What a call may prefer (`prefer` on the call), and the strategy each one stands for. */
export type RoutingPreference = 'cost' | 'latency' | 'reliability';

export const PREFERRED_STRATEGY = {
  cost: 'cheapest',
  latency: 'fastest',
  reliability: 'fewest_failures',
} as const satisfies Record<RoutingPreference, RoutingStrategy>;

/** The strategy that orders a call's candidates: the call's preference, else the route's. @default 'ordered' */
export function effectiveStrategy(
  route: Pick<ResolvedRoute, 'strategy'>,
  prefer: RoutingPreference | undefined,
): RoutingStrategy {
  return prefer ? PREFERRED_STRATEGY[prefer] : (route.strategy ?? 'ordered');
}

export interface CandidateOrderInput {
  readonly route: Pick<ResolvedRoute, 'targets' | 'candidates' | 'strategy'>;
  /** The call's `prefer`: overrides the route's strategy (not a nested route's). */
  readonly prefer?: RoutingPreference;
  /** The call's `require`: hard filters. */
  readonly require?: RoutingRequirements;
  /** Worst-case cost of one attempt on each target (by target index), in nano-USD: what `cheapest` compares. */
  readonly boundsNanoUsd: readonly NanoUsd[];
  /** The worker's measurements of each target (by target index); absent or shorter: unmeasured, no failures. */
  readonly observations?: readonly (TargetObservation | undefined)[];
  /**
   * A uniform number in [0, 1) drawn by an activity (recorded in history), for `weighted`.
   * @default 0 (the first candidate leads, as it would with no weights)
   */
  readonly draw?: number;
  /** Failed attempts on each target (by target index) so far in this call: `fewest_failures` counts them. */
  readonly failuresThisCall?: readonly number[];
}

export interface OrderedCandidate {
  /** Index among the route's declared candidates (`routeCandidates`). */
  readonly index: number;
  /** `provider/model`, or `route:<name>` for a nested route. */
  readonly name: string;
  /** The nested route's name, for a nested candidate. */
  readonly route?: string;
  /** Its targets that passed the filters, in the order to try them (its own strategy's, for a nested route). */
  readonly targetIndexes: readonly number[];
}

export interface CandidateOrder {
  readonly strategy: RoutingStrategy;
  /** Every candidate not rejected, in the order to try them: total, ties broken by declared order. */
  readonly candidates: readonly OrderedCandidate[];
  /** Targets (or whole nested routes) the call's `require` filtered out, each with its reason. */
  readonly rejected: readonly CandidateVerdict[];
  /** The requirements (`require.capabilities`, ...) that rejected something, in the order met. */
  readonly rejectedBy: readonly string[];
  /** One sentence: why this order, and why the leader leads. */
  readonly reason: string;
}

/** The one measure a strategy compares targets by; `undefined` sorts after every value (unmeasured). */
type Measure = (targetIndex: number) => number | undefined;

interface State {
  readonly input: CandidateOrderInput;
  readonly bound: Measure;
  readonly latency: Measure;
  readonly failures: Measure;
}

/** `provider/model` of a target, or `route:<name>` of a nested candidate. */
export function candidateName(
  route: Pick<ResolvedRoute, 'targets'>,
  candidate: Pick<RouteCandidate, 'targetIndexes' | 'route'>,
): string {
  if (candidate.route !== undefined) return `route:${candidate.route}`;
  const target = route.targets[candidate.targetIndexes[0]!]!;
  return `${target.provider}/${target.model}`;
}

/** The route's candidates ordered for this call, with those its requirements reject. Same input, same order. */
export function orderCandidates(input: CandidateOrderInput): CandidateOrder {
  const { route } = input;
  const strategy = effectiveStrategy(route, input.prefer);
  const state: State = {
    input,
    bound: (index) => input.boundsNanoUsd[index],
    latency: (index) => input.observations?.[index]?.latencyMs,
    failures: (index) =>
      (input.observations?.[index]?.recentFailures ?? 0) + (input.failuresThisCall?.[index] ?? 0),
  };
  const rejected: CandidateVerdict[] = [];
  const rejectedBy: string[] = [];
  const eligible: { candidate: RouteCandidate; index: number; targets: number[] }[] = [];
  routeCandidates(route).forEach((candidate, index) => {
    const targets: number[] = [];
    const reasons: CandidateVerdict[] = [];
    for (const targetIndex of candidate.targetIndexes) {
      const refusal = requirementRefusal(state, targetIndex);
      if (!refusal) {
        targets.push(targetIndex);
        continue;
      }
      if (!rejectedBy.includes(refusal.requirement)) rejectedBy.push(refusal.requirement);
      reasons.push({
        candidate: candidateName(route, { targetIndexes: [targetIndex] }),
        reason: refusal.reason,
      });
    }
    if (targets.length) {
      eligible.push({ candidate, index, targets });
      // A nested route keeps its other targets: only the refused ones are named, as in its route.
      for (const verdict of reasons) {
        rejected.push({
          candidate: verdict.candidate,
          reason: `${verdict.reason} (in route:${candidate.route})`,
        });
      }
    } else if (candidate.route !== undefined) {
      const why = reasons.map((verdict) => `${verdict.candidate} ${verdict.reason}`).join('; ');
      rejected.push({ candidate: `route:${candidate.route}`, reason: `every target rejected: ${why}` });
    } else {
      rejected.push(...reasons);
    }
  });

  const leaderDraw = clampDraw(input.draw);
  let innerDrawOf: (index: number) => number = () => leaderDraw;
  let ordered: typeof eligible;
  if (strategy === 'weighted') {
    const pick = weightedPick(
      eligible.map((entry) => entry.candidate.weight),
      leaderDraw,
    );
    const leader = eligible[pick.leader];
    ordered = leader ? [leader, ...eligible.filter((entry) => entry !== leader)] : [];
    // The leader's inner draw is where the draw fell within its share: uniform again, and independent of the pick.
    innerDrawOf = (index) => (leader && index === leader.index ? pick.within : leaderDraw);
  } else {
    const measure = strategyMeasure(state, strategy);
    ordered = measure
      ? sortByMeasure(
          eligible,
          (entry) => bestOf(entry.targets, measure),
          (entry) => entry.index,
        )
      : eligible;
  }
  const candidates = ordered.map((entry): OrderedCandidate => {
    const name = candidateName(route, entry.candidate);
    const targetIndexes =
      entry.candidate.route === undefined
        ? entry.targets
        : orderTargets(state, entry.targets, entry.candidate.strategy ?? 'ordered', innerDrawOf(entry.index));
    return {
      index: entry.index,
      name,
      targetIndexes,
      ...(entry.candidate.route !== undefined ? { route: entry.candidate.route } : {}),
    };
  });
  return {
    strategy,
    candidates,
    rejected,
    rejectedBy,
    reason: explainOrder(state, strategy, candidates, rejected, rejectedBy, leaderDraw),
  };
}

/** A nested route's eligible targets in its own strategy's order. */
function orderTargets(
  state: State,
  targets: readonly number[],
  strategy: RoutingStrategy,
  draw: number,
): number[] {
  if (strategy === 'weighted') {
    const weights = targets.map((targetIndex) => state.input.route.targets[targetIndex]!.weight ?? 1);
    const leader = targets[weightedPick(weights, draw).leader];
    return leader === undefined ? [] : [leader, ...targets.filter((targetIndex) => targetIndex !== leader)];
  }
  const measure = strategyMeasure(state, strategy);
  return measure ? sortByMeasure(targets, measure, (targetIndex) => targetIndex) : [...targets];
}

function strategyMeasure(state: State, strategy: RoutingStrategy): Measure | undefined {
  switch (strategy) {
    case 'cheapest':
      return state.bound;
    case 'fastest':
      return state.latency;
    case 'fewest_failures':
      return state.failures;
    default:
      return undefined;
  }
}

/** The lowest value of `measure` over `targets`, or undefined when none has one. */
function bestOf(targets: readonly number[], measure: Measure): number | undefined {
  const values = targets.map(measure).filter((value): value is number => value !== undefined);
  return values.length ? Math.min(...values) : undefined;
}

/** Ascending by `key`, unmeasured last; ties (and the unmeasured) by `declared`. A total order. */
function sortByMeasure<T>(
  items: readonly T[],
  key: (item: T) => number | undefined,
  declared: (item: T) => number,
): T[] {
  return [...items].sort((left, right) => {
    const a = key(left);
    const b = key(right);
    if (a !== b) {
      if (a === undefined) return 1;
      if (b === undefined) return -1;
      return a - b;
    }
    return declared(left) - declared(right);
  });
}

function clampDraw(draw: number | undefined): number {
  if (draw === undefined || !Number.isFinite(draw) || draw < 0) return 0;
  return draw >= 1 ? 1 - Number.EPSILON : draw;
}

/**
 * The entry a draw in [0, 1) falls on when each takes a share of [0, 1) proportional to its weight, in order;
 * `within` is where in that share it fell, scaled back to [0, 1).
 */
export function weightedPick(weights: readonly number[], draw: number): { leader: number; within: number } {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let point = clampDraw(draw) * total;
  for (const [index, weight] of weights.entries()) {
    if (point < weight) return { leader: index, within: Math.min(point / weight, 1 - Number.EPSILON) };
    point -= weight;
  }
  // Rounding left the point past the last share: it belongs to the last entry.
  return { leader: Math.max(0, weights.length - 1), within: 1 - Number.EPSILON };
}

/** Why the call's `require` refuses this target, or undefined when it passes. */
function requirementRefusal(
  state: State,
  targetIndex: number,
): { requirement: string; reason: string } | undefined {
  const { require } = state.input;
  if (!require) return undefined;
  const target = state.input.route.targets[targetIndex]!;
  const missing = (require.capabilities ?? []).filter(
    (capability) => target.supports?.[capability] === false,
  );
  if (missing.length) {
    return {
      requirement: 'require.capabilities',
      reason: `does not support ${missing.join(', ')} (require.capabilities)`,
    };
  }
  if (require.maxLatencyMs !== undefined) {
    const latencyMs = state.latency(targetIndex);
    // Unmeasured, the target's timeout is all the call knows of how long it may take.
    if (latencyMs === undefined && target.timeoutMs > require.maxLatencyMs) {
      return {
        requirement: 'require.maxLatencyMs',
        reason: `no latency measured, and its timeout ${target.timeoutMs} ms is above require.maxLatencyMs ${require.maxLatencyMs}`,
      };
    }
    if (latencyMs !== undefined && latencyMs > require.maxLatencyMs) {
      return {
        requirement: 'require.maxLatencyMs',
        reason: `measured ${Math.round(latencyMs)} ms typical latency, above require.maxLatencyMs ${require.maxLatencyMs}`,
      };
    }
  }
  if (require.maxCostUsd !== undefined) {
    const bound = state.bound(targetIndex) ?? 0;
    if (bound > usdToNanoFloor(require.maxCostUsd)) {
      return {
        requirement: 'require.maxCostUsd',
        reason: `may cost up to ${usd(bound)} USD, above require.maxCostUsd ${require.maxCostUsd}`,
      };
    }
  }
  return undefined;
}

function usd(nanoUsd: NanoUsd): string {
  return nanoToUsd(nanoUsd).toFixed(6);
}

function plural(count: number, noun: string): string {
  return `${count} eligible ${noun}${count === 1 ? '' : 's'}`;
}

/** One sentence: which strategy, over how many, why the leader leads, and what was rejected. */
function explainOrder(
  state: State,
  strategy: RoutingStrategy,
  candidates: readonly OrderedCandidate[],
  rejected: readonly CandidateVerdict[],
  rejectedBy: readonly string[],
  draw: number,
): string {
  const by = state.input.prefer ? `the call prefers ${state.input.prefer}: ` : '';
  const rejections = rejected.length ? `; ${rejected.length} rejected by ${rejectedBy.join(', ')}` : '';
  const leader = candidates[0];
  if (!leader) return `no eligible candidate: every one was rejected by ${rejectedBy.join(', ')}`;
  const count = plural(candidates.length, 'candidate');
  const best = (measure: Measure) => bestOf(leader.targetIndexes, measure);
  let sentence: string;
  switch (strategy) {
    case 'cheapest':
      sentence = `cheapest of ${count}: ${leader.name} may cost up to ${usd(best(state.bound) ?? 0)} USD`;
      break;
    case 'fastest': {
      const latencyMs = best(state.latency);
      sentence =
        latencyMs === undefined
          ? `fastest of ${count}, but no measurements yet: declared order, ${leader.name} first`
          : `fastest of ${count}: ${leader.name} measured ${Math.round(latencyMs)} ms typical`;
      break;
    }
    case 'weighted': {
      const weights = candidates.map(
        (candidate) => routeCandidates(state.input.route)[candidate.index]!.weight,
      );
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      sentence = `weighted draw ${draw.toFixed(3)} over ${count} picked ${leader.name} (weight ${weights[0]} of ${total}); the rest in declared order`;
      break;
    }
    case 'fewest_failures':
      sentence = `fewest failures of ${count}: ${leader.name} with ${best(state.failures) ?? 0} (recent and in this call)`;
      break;
    default:
      sentence = `declared order of ${count}: ${leader.name} first`;
  }
  return `${by}${sentence}${rejections}`;
}

/** Strategies whose order reads the worker's measurements or a draw. */
const OBSERVING_STRATEGIES: readonly RoutingStrategy[] = ['fastest', 'weighted', 'fewest_failures'];

/**
 * Whether ordering this call's candidates reads the worker's measurements or a draw: its own strategy, a nested
 * route's, the call's `prefer`, or a latency requirement. A route not yet resolved counts by the call alone.
 */
export function readsObservations(
  route: Pick<ResolvedRoute, 'strategy' | 'candidates'> | undefined,
  call: { readonly prefer?: RoutingPreference; readonly require?: RoutingRequirements } = {},
): boolean {
  if (call.require?.maxLatencyMs !== undefined) return true;
  const outer = call.prefer ? PREFERRED_STRATEGY[call.prefer] : (route?.strategy ?? 'ordered');
  const nested = (route?.candidates ?? []).map((candidate) => candidate.strategy ?? 'ordered');
  return [outer, ...nested].some((strategy) => OBSERVING_STRATEGIES.includes(strategy));
}
