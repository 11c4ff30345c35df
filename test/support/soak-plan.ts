// The soak's seeded call plan: which route, budget scope, prompt and mode each call uses, and the concurrency phases.
import { mulberry32 } from '../../src/fake-provider/random-faults';
import type { RoutedCallInputValue } from '../../src/config/routed-call-input';
import { SOAK_ROUTE_NAMES, type SoakRouteName } from './soak-config';

/** Budget scope kinds: a limit the soak exhausts, a roomy one, an unlimited tracked one, and no scope at all. */
export const SoakScopeKind = { tight: 'tight', roomy: 'roomy', tracked: 'tracked', none: 'none' } as const;
export type SoakScopeKind = (typeof SoakScopeKind)[keyof typeof SoakScopeKind];

export interface SoakCall {
  readonly index: number;
  readonly route: SoakRouteName;
  readonly scopeKind: SoakScopeKind;
  readonly stream: boolean;
  readonly prompt: string;
  readonly maxOutputTokens: number;
}

/** Limits of the budgeted scopes, in USD: the tight one runs out after some tens of calls. */
export const SOAK_LIMITS_USD = { tight: 0.03, roomy: 5 } as const;

const PROMPTS = [
  'Say hello.',
  'Summarise the plot of Hamlet in two sentences.',
  'List three prime numbers greater than one hundred and explain why each is prime.',
  'Translate "the quick brown fox jumps over the lazy dog" into French, German and Spanish, one per line, and say which language uses the most words.',
];
const MAX_OUTPUT_TOKENS = [16, 48, 128];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function pickWeighted<T extends string>(random: () => number, weights: Readonly<Record<T, number>>): T {
  const entries = Object.entries(weights) as [T, number][];
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let draw = random() * total;
  for (const [key, weight] of entries) {
    draw -= weight;
    if (draw < 0) return key;
  }
  return entries[entries.length - 1]![0];
}

/** N calls drawn from a stream of the soak seed (independent of the fake's fault streams). */
export function planSoakCalls(count: number, seed: number): SoakCall[] {
  const random = mulberry32((seed ^ 0x5eed_ca11) >>> 0);
  const routeWeights = Object.fromEntries(SOAK_ROUTE_NAMES.map((name) => [name, 1])) as Record<
    SoakRouteName,
    number
  >;
  return Array.from({ length: count }, (_, index) => ({
    index,
    route: pickWeighted(random, routeWeights),
    scopeKind: pickWeighted(random, { tight: 2, roomy: 4, tracked: 2, none: 2 }),
    stream: random() < 0.25,
    prompt: pick(random, PROMPTS),
    maxOutputTokens: pick(random, MAX_OUTPUT_TOKENS),
  }));
}

/** Concurrency levels the soak walks through, each for an equal share of the calls. */
export const SOAK_CONCURRENCY_LEVELS = [10, 20, 15] as const;

/** Splits the calls into one consecutive slice per concurrency level. */
export function soakPhases(calls: readonly SoakCall[]): { concurrency: number; calls: SoakCall[] }[] {
  const size = Math.ceil(calls.length / SOAK_CONCURRENCY_LEVELS.length);
  return SOAK_CONCURRENCY_LEVELS.map((concurrency, phase) => ({
    concurrency,
    calls: calls.slice(phase * size, (phase + 1) * size),
  })).filter((phase) => phase.calls.length > 0);
}

/** The routed-call input of one planned call; `scopes` maps scope kinds to this run's scope names. */
export function soakCallInput(
  call: SoakCall,
  scopes: Readonly<Record<Exclude<SoakScopeKind, 'none'>, string>>,
): RoutedCallInputValue {
  return {
    route: call.route,
    request: {
      messages: [{ role: 'user', content: call.prompt }],
      maxOutputTokens: call.maxOutputTokens,
    },
    stream: call.stream,
    ...(call.scopeKind !== 'none' ? { budget: scopes[call.scopeKind] } : {}),
    labels: { soak: String(call.index) },
  };
}
