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

test('when failures opened every breaker, waits for the earliest probe, not a backoff that comes before it', () => {
  // Round 1's backoff is 1 s; the breakers the failures opened offer a probe only after 2.4 s.
  expect(
    nextRoundAt({
      nowMs,
      round: 1,
      earliestProbeAtMs: nowMs + 2_400,
      someTargetClosed: false,
      patienceEndsAtMs: nowMs + 60_000,
    }),
  ).toBe(nowMs + 2_400);
});

test('when failures opened every breaker, starts at the earliest probe, not a longer backoff after it', () => {
  // Round 3's backoff is 4 s; a probe is free after 2.4 s.
  expect(
    nextRoundAt({
      nowMs,
      round: 3,
      earliestProbeAtMs: nowMs + 2_400,
      someTargetClosed: false,
      patienceEndsAtMs: nowMs + 60_000,
    }),
  ).toBe(nowMs + 2_400);
});

test('a target whose breaker stayed closed is tried again after the backoff, if that comes first', () => {
  const situation = { nowMs, round: 1, earliestProbeAtMs: nowMs + 30_000, patienceEndsAtMs: nowMs + 60_000 };
  expect(nextRoundAt({ ...situation, someTargetClosed: true })).toBe(nowMs + 1_000);
  expect(nextRoundAt({ ...situation, earliestProbeAtMs: nowMs + 500, someTargetClosed: true })).toBe(
    nowMs + 500,
  );
});
