// When a patient call walks its route again: the breaker's word first, else a doubling backoff, within limits.
import { MAX_PATIENCE_BACKOFF_MS, MIN_ROUND_WAIT_MS, nextRoundAt } from '../../../src/routing/patience';

const nowMs = 1_000_000;

test('waits for the earliest breaker probe when a breaker skipped a target', () => {
  expect(
    nextRoundAt({ nowMs, round: 1, earliestProbeAtMs: nowMs + 30_000, patienceEndsAtMs: nowMs + 60_000 }),
  ).toBe(nowMs + 30_000);
});

test('without a breaker time, backs off 1 s, 2 s, 4 s … up to a minute', () => {
  const at = (round: number) => nextRoundAt({ nowMs, round, patienceEndsAtMs: nowMs + 3_600_000 })! - nowMs;
  expect([1, 2, 3].map(at)).toEqual([1_000, 2_000, 4_000]);
  expect(at(20)).toBe(MAX_PATIENCE_BACKOFF_MS);
});

test('a probe time already past still waits a moment', () => {
  expect(
    nextRoundAt({ nowMs, round: 1, earliestProbeAtMs: nowMs - 5, patienceEndsAtMs: nowMs + 60_000 }),
  ).toBe(nowMs + MIN_ROUND_WAIT_MS);
});

test('gives up when the next round would start after patience or the deadline', () => {
  expect(
    nextRoundAt({ nowMs, round: 1, earliestProbeAtMs: nowMs + 30_001, patienceEndsAtMs: nowMs + 30_000 }),
  ).toBeUndefined();
  expect(
    nextRoundAt({ nowMs, round: 1, patienceEndsAtMs: nowMs + 60_000, lastStartAtMs: nowMs + 500 }),
  ).toBeUndefined();
});
