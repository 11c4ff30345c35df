// Seeded random faults for the fake provider: a PRNG stream per (provider, model), fault weights as data. Test/bench side.
import { SwitchyardError } from '../config/branded-error';
import type { FakeScenario } from './scenario';

/**
 * The faults a random draw can pick, each rendered by an existing scenario (so the real SDKs' view of each is
 * already covered by the fixed fault tests). `answer` is the plain success.
 */
export const RandomFaultKind = {
  answer: 'answer',
  rateLimited: 'rate_limited',
  serverError: 'server_error',
  badGateway: 'bad_gateway',
  overloaded: 'overloaded',
  hang: 'hang',
  reset: 'reset',
  refusal: 'refusal',
  invalidJson: 'invalid_json',
} as const;
export type RandomFaultKind = (typeof RandomFaultKind)[keyof typeof RandomFaultKind];

/** Relative weight of each kind; a kind left out (or 0) is never drawn. Weights need not sum to 1. */
export type RandomFaultWeights = Readonly<Partial<Record<RandomFaultKind, number>>>;

/** Mostly successes, a few of every fault; hangs rare, since each one lasts a whole attempt timeout. */
export const DEFAULT_RANDOM_FAULT_WEIGHTS: RandomFaultWeights = {
  answer: 0.82,
  rate_limited: 0.04,
  server_error: 0.02,
  bad_gateway: 0.01,
  overloaded: 0.02,
  hang: 0.01,
  reset: 0.03,
  refusal: 0.02,
  invalid_json: 0.03,
};

/** The scenario that renders each kind (the same ones the fixed fault tests script). */
const SCENARIOS: Readonly<Record<RandomFaultKind, FakeScenario>> = {
  answer: { kind: 'answer' },
  rate_limited: { kind: 'error', error: 'rate_limited' },
  server_error: { kind: 'error', error: 'server_error' },
  bad_gateway: { kind: 'error', error: 'bad_gateway' },
  overloaded: { kind: 'error', error: 'overloaded' },
  hang: { kind: 'hang' },
  reset: { kind: 'reset' },
  refusal: { kind: 'refusal' },
  invalid_json: { kind: 'invalid_json' },
};

export function scenarioOfRandomFault(kind: RandomFaultKind): FakeScenario {
  return SCENARIOS[kind];
}

export interface RandomFaultOptions {
  /** Seed of every stream; the same seed gives the same kinds in the same request order per (provider, model). */
  readonly seed: number;
  /** @default {@link DEFAULT_RANDOM_FAULT_WEIGHTS} */
  readonly weights?: RandomFaultWeights;
  /** Models that get random faults. @default every model no other script claims */
  readonly models?: readonly string[];
}

export class InvalidRandomFaultWeightsError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.InvalidRandomFaultWeightsError';

  override readonly name = 'InvalidRandomFaultWeightsError';
  constructor(
    message: string,
    readonly weights: RandomFaultWeights,
  ) {
    super(message);
  }
}

/** mulberry32: a small, fast 32-bit PRNG; returns a function of floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a over the seed and a key: one independent stream seed per (provider, model). */
export function streamSeed(seed: number, key: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

interface WeightTable {
  readonly kinds: readonly RandomFaultKind[];
  /** Cumulative weights, normalised so the last is 1. */
  readonly cumulative: readonly number[];
}

function weightTable(weights: RandomFaultWeights): WeightTable {
  const entries = Object.entries(weights) as [RandomFaultKind, number][];
  for (const [kind, weight] of entries) {
    if (!(kind in SCENARIOS))
      throw new InvalidRandomFaultWeightsError(`unknown random fault kind "${kind}"`, weights);
    if (!Number.isFinite(weight) || weight < 0)
      throw new InvalidRandomFaultWeightsError(`weight of "${kind}" must be a finite number ≥ 0`, weights);
  }
  // A fixed kind order (not the object's key order) keeps the draw the same for equal weights written differently.
  const kinds = (Object.keys(SCENARIOS) as RandomFaultKind[]).filter((kind) => (weights[kind] ?? 0) > 0);
  const total = kinds.reduce((sum, kind) => sum + weights[kind]!, 0);
  if (total <= 0) throw new InvalidRandomFaultWeightsError('at least one weight must be above 0', weights);
  let running = 0;
  const cumulative = kinds.map((kind) => (running += weights[kind]! / total));
  return { kinds, cumulative };
}

/** Draws fault kinds, one independent seeded stream per `provider/model` key, in request order. */
export class RandomFaults {
  readonly seed: number;
  private readonly table: WeightTable;
  private readonly models: ReadonlySet<string> | undefined;
  private readonly streams = new Map<string, () => number>();
  /** Every kind drawn so far per `provider/model`, in order. */
  private readonly drawnByKey = new Map<string, RandomFaultKind[]>();

  constructor(options: RandomFaultOptions) {
    if (!Number.isInteger(options.seed)) throw new RangeError(`random fault seed must be an integer`);
    this.seed = options.seed;
    this.table = weightTable(options.weights ?? DEFAULT_RANDOM_FAULT_WEIGHTS);
    this.models = options.models ? new Set(options.models) : undefined;
  }

  applies(model: string): boolean {
    return this.models === undefined || this.models.has(model);
  }

  /** The next kind of the `provider/model` stream. */
  nextKind(provider: string, model: string): RandomFaultKind {
    const key = `${provider}/${model}`;
    let stream = this.streams.get(key);
    if (!stream) {
      stream = mulberry32(streamSeed(this.seed, key));
      this.streams.set(key, stream);
    }
    const draw = stream();
    const { kinds, cumulative } = this.table;
    const index = cumulative.findIndex((bound) => draw < bound);
    // Rounding can leave the last cumulative weight a hair under 1.
    const kind = kinds[index === -1 ? kinds.length - 1 : index]!;
    const drawn = this.drawnByKey.get(key) ?? [];
    drawn.push(kind);
    this.drawnByKey.set(key, drawn);
    return kind;
  }

  /** The kinds drawn so far for `provider/model` (what its requests were served), oldest first. */
  drawn(provider: string, model: string): readonly RandomFaultKind[] {
    return this.drawnByKey.get(`${provider}/${model}`) ?? [];
  }

  /** The next scenario of the `provider/model` stream. */
  next(provider: string, model: string): FakeScenario {
    return scenarioOfRandomFault(this.nextKind(provider, model));
  }
}

/** The first `count` kinds a fresh stream draws for `provider/model`: what a fake with `options` will serve. */
export function randomFaultSequence(
  options: RandomFaultOptions,
  provider: string,
  model: string,
  count: number,
): RandomFaultKind[] {
  const faults = new RandomFaults(options);
  return Array.from({ length: count }, () => faults.nextKind(provider, model));
}
