// The fake provider's seeded random faults, pure: reproducible streams per (provider, model) and weights honoured.
import {
  DEFAULT_RANDOM_FAULT_WEIGHTS,
  InvalidRandomFaultWeightsError,
  RandomFaults,
  mulberry32,
  randomFaultSequence,
  scenarioOfRandomFault,
  type RandomFaultKind,
} from '../../../src/fake-provider/random-faults';
import { FakeScenarioSchema } from '../../../src/fake-provider';

const SEED = 20_261_129;

function tally(kinds: readonly RandomFaultKind[]): Partial<Record<RandomFaultKind, number>> {
  const counts: Partial<Record<RandomFaultKind, number>> = {};
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

test('mulberry32 is deterministic and spreads over [0, 1)', () => {
  const first = mulberry32(42);
  const second = mulberry32(42);
  const draws = Array.from({ length: 10_000 }, () => first());
  expect(Array.from({ length: 10_000 }, () => second())).toEqual(draws);
  expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
  expect(Math.max(...draws)).toBeLessThan(1);
  const mean = draws.reduce((sum, draw) => sum + draw, 0) / draws.length;
  expect(mean).toBeGreaterThan(0.48);
  expect(mean).toBeLessThan(0.52);
  expect(new Set(draws).size).toBeGreaterThan(9_990);
});

test('the same seed gives the same sequence per (provider, model); another seed or key another one', () => {
  const sequence = randomFaultSequence({ seed: SEED }, 'openai', 'gpt-a', 500);
  expect(randomFaultSequence({ seed: SEED }, 'openai', 'gpt-a', 500)).toEqual(sequence);
  expect(randomFaultSequence({ seed: SEED + 1 }, 'openai', 'gpt-a', 500)).not.toEqual(sequence);
  expect(randomFaultSequence({ seed: SEED }, 'openai', 'gpt-b', 500)).not.toEqual(sequence);
  expect(randomFaultSequence({ seed: SEED }, 'anthropic', 'gpt-a', 500)).not.toEqual(sequence);
});

test("interleaving other models' requests does not change a model's sequence", () => {
  const alone = randomFaultSequence({ seed: SEED }, 'anthropic', 'claude-a', 300);
  const faults = new RandomFaults({ seed: SEED });
  const interleaved: RandomFaultKind[] = [];
  for (let index = 0; index < 300; index += 1) {
    faults.nextKind('openai', 'gpt-a');
    if (index % 3 === 0) faults.nextKind('anthropic', 'claude-b');
    interleaved.push(faults.nextKind('anthropic', 'claude-a'));
  }
  expect(interleaved).toEqual(alone);
  expect(faults.drawn('anthropic', 'claude-a')).toEqual(alone);
  expect(faults.drawn('anthropic', 'claude-b')).toHaveLength(100);
});

test('weights are respected: each kind within a few standard deviations of its share', () => {
  const draws = 20_000;
  const counts = tally(randomFaultSequence({ seed: SEED }, 'openai', 'gpt-a', draws));
  const total = Object.values(DEFAULT_RANDOM_FAULT_WEIGHTS).reduce((sum, weight) => sum + weight!, 0);
  for (const [kind, weight] of Object.entries(DEFAULT_RANDOM_FAULT_WEIGHTS)) {
    const share = weight! / total;
    const expected = draws * share;
    const deviation = Math.sqrt(draws * share * (1 - share));
    const count = counts[kind as RandomFaultKind] ?? 0;
    // The kind travels with the verdict so a failure names it.
    expect([kind, Math.abs(count - expected) < 5 * deviation]).toEqual([kind, true]);
  }
});

test('a kind with no weight is never drawn, and weights need not sum to 1', () => {
  const counts = tally(
    randomFaultSequence({ seed: SEED, weights: { answer: 3, hang: 0, reset: 1 } }, 'x', 'm', 4_000),
  );
  expect(Object.keys(counts).sort()).toEqual(['answer', 'reset']);
  expect(counts.reset! / 4_000).toBeGreaterThan(0.2);
  expect(counts.reset! / 4_000).toBeLessThan(0.3);
});

test('models limits where random faults apply', () => {
  const faults = new RandomFaults({ seed: SEED, models: ['gpt-a'] });
  expect(faults.applies('gpt-a')).toBe(true);
  expect(faults.applies('gpt-b')).toBe(false);
  expect(new RandomFaults({ seed: SEED }).applies('anything')).toBe(true);
});

test('bad weights and seeds are refused up front', () => {
  expect(() => new RandomFaults({ seed: SEED, weights: { answer: 0 } })).toThrow(
    InvalidRandomFaultWeightsError,
  );
  expect(() => new RandomFaults({ seed: SEED, weights: { answer: -1, hang: 1 } })).toThrow(
    InvalidRandomFaultWeightsError,
  );
  expect(
    () => new RandomFaults({ seed: SEED, weights: { teapot: 1 } as unknown as Record<string, number> }),
  ).toThrow(/unknown random fault kind "teapot"/);
  expect(() => new RandomFaults({ seed: 1.5 })).toThrow(RangeError);
});

test('every kind renders as an existing, valid fake scenario', () => {
  for (const kind of Object.keys(DEFAULT_RANDOM_FAULT_WEIGHTS) as RandomFaultKind[]) {
    expect(FakeScenarioSchema.safeParse(scenarioOfRandomFault(kind)).success).toBe(true);
  }
  expect(scenarioOfRandomFault('rate_limited')).toEqual({ kind: 'error', error: 'rate_limited' });
  expect(scenarioOfRandomFault('hang')).toEqual({ kind: 'hang' });
});
