// A worker's recent measurements of each provider/model (latency of answers, breaker-counted failures), bounded. Worker side.
import { ApplicationFailure } from '@temporalio/common';
import { SwitchyardError } from '../config/branded-error';
import { ALL_FAILURE_CLASSES, countsOnBreaker, type FailureClass } from '../config/failure-class';
import type { TargetObservation } from '../routing/target-observation';
import type { createProviderCall } from './call-provider';

/** How far back both measurements look, in milliseconds: 5 minutes. */
export const DEFAULT_OBSERVATION_WINDOW_MS = 300_000;
/** How many answers per target the latency is the median of: the last 50. */
export const DEFAULT_LATENCY_SAMPLES = 50;
/** How many failures per target are kept (the count saturates there): 1 000. */
export const DEFAULT_FAILURE_SAMPLES = 1_000;
/** How many `provider/model` keys one worker keeps: 1 000 (the least recently measured one goes first). */
export const DEFAULT_OBSERVED_TARGETS = 1_000;

export interface TargetObservationSettings {
  /** How far back the latency and the failure count look, in milliseconds. @default 300000 */
  readonly windowMs?: number;
  /** Answers kept per target; the latency is their median. @default 50 */
  readonly latencySamples?: number;
  /** Failures kept per target; `recentFailures` never exceeds it. @default 1000 */
  readonly failureSamples?: number;
  /** `provider/model` keys kept; recording a new one beyond it drops the least recently recorded. @default 1000 */
  readonly maxTargets?: number;
  /** Epoch milliseconds now. @default Date.now */
  readonly clock?: () => number;
}

/** Which target a measurement belongs to: its provider and model, as a route names them. */
export interface ObservedTarget {
  readonly provider: string;
  readonly model: string;
}

interface Measurements {
  /** Answers, oldest first: when each was recorded (epoch ms) and its latency (ms). */
  readonly answers: { atMs: number; latencyMs: number }[];
  /** When each breaker-counted failure was recorded (epoch ms), oldest first. */
  readonly failures: number[];
}

/** A setting of {@link TargetObservations} that is not a positive whole number; the message names it. */
export class ObservationSettingsError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.ObservationSettingsError';

  override readonly name = 'ObservationSettingsError';
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ObservationSettingsError(
      `target observations: ${name} must be a positive integer, got ${value}`,
    );
  }
  return value;
}

/** Drops the entries before `cutoffMs` from the front of a list kept oldest first. */
function dropBefore<T>(entries: T[], cutoffMs: number, timeOf: (entry: T) => number): void {
  let expired = 0;
  while (expired < entries.length && timeOf(entries[expired]!) < cutoffMs) expired += 1;
  if (expired > 0) entries.splice(0, expired);
}

/** The median of a non-empty list, rounded to a whole millisecond. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(value);
}

/**
 * Per-worker recent measurements by `provider/model`, the state the `fastest`, `fewest_failures` and `weighted`
 * strategies read through `beginCall`.
 *
 * - **Latency**: the median of the last {@link DEFAULT_LATENCY_SAMPLES} answered attempts of the last
 *   {@link DEFAULT_OBSERVATION_WINDOW_MS}, each timed as the Prometheus `switchyard_attempt_latency_ms` histogram
 *   times it (the provider call's own `latencyMs`, request to whole answer). A median rather than a moving
 *   average: attempt latencies are skewed (one long generation or stalled stream is common), and one outlier
 *   must not reorder a route; and a window forgets entirely, so a target that recovered is measured afresh.
 * - **Failures**: attempts whose failure class counts on the circuit breaker (`countsOnBreaker`), in the same
 *   window. A refusal, an invalid request or a cancellation says nothing about the target and is not counted.
 *
 * Memory is bounded whatever the traffic: at most `latencySamples` + `failureSamples` entries per key and
 * `maxTargets` keys.
 */
export class TargetObservations {
  private readonly byTarget = new Map<string, Measurements>();
  private readonly windowMs: number;
  private readonly latencySamples: number;
  private readonly failureSamples: number;
  private readonly maxTargets: number;
  private readonly clock: () => number;

  constructor(settings: TargetObservationSettings = {}) {
    this.windowMs = positiveInteger('windowMs', settings.windowMs ?? DEFAULT_OBSERVATION_WINDOW_MS);
    this.latencySamples = positiveInteger(
      'latencySamples',
      settings.latencySamples ?? DEFAULT_LATENCY_SAMPLES,
    );
    this.failureSamples = positiveInteger(
      'failureSamples',
      settings.failureSamples ?? DEFAULT_FAILURE_SAMPLES,
    );
    this.maxTargets = positiveInteger('maxTargets', settings.maxTargets ?? DEFAULT_OBSERVED_TARGETS);
    this.clock = settings.clock ?? Date.now;
  }

  /** How many `provider/model` keys are held. */
  get size(): number {
    return this.byTarget.size;
  }

  /** An answered attempt on `target` that took `latencyMs` milliseconds. */
  recordAnswer(target: ObservedTarget, latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) return;
    const { answers } = this.measurementsFor(target);
    answers.push({ atMs: this.clock(), latencyMs });
    if (answers.length > this.latencySamples) answers.splice(0, answers.length - this.latencySamples);
  }

  /** A failed attempt on `target`; counted only when its class counts on the breaker. */
  recordFailure(target: ObservedTarget, failureClass: FailureClass): void {
    if (!countsOnBreaker(failureClass)) return;
    const { failures } = this.measurementsFor(target);
    failures.push(this.clock());
    if (failures.length > this.failureSamples) failures.splice(0, failures.length - this.failureSamples);
  }

  /** What this worker saw of `target` in the window: no latency and no failures when it saw nothing. */
  observe(target: ObservedTarget): TargetObservation {
    const measurements = this.byTarget.get(keyOf(target));
    if (!measurements) return { recentFailures: 0 };
    const cutoffMs = this.clock() - this.windowMs;
    dropBefore(measurements.answers, cutoffMs, (answer) => answer.atMs);
    dropBefore(measurements.failures, cutoffMs, (atMs) => atMs);
    const latencies = measurements.answers.map((answer) => answer.latencyMs);
    return {
      ...(latencies.length > 0 ? { latencyMs: median(latencies) } : {}),
      recentFailures: measurements.failures.length,
    };
  }

  /** The key's measurements, made the most recently recorded; the least recent key goes beyond the cap. */
  private measurementsFor(target: ObservedTarget): Measurements {
    const key = keyOf(target);
    const measurements = this.byTarget.get(key) ?? { answers: [], failures: [] };
    // A Map iterates in insertion order: re-inserting keeps the least recently recorded key first.
    this.byTarget.delete(key);
    this.byTarget.set(key, measurements);
    if (this.byTarget.size > this.maxTargets) {
      const oldest = this.byTarget.keys().next().value;
      if (oldest !== undefined) this.byTarget.delete(oldest);
    }
    return measurements;
  }
}

/** One key per provider and model; JSON so that a `/` inside either name cannot make two targets one. */
function keyOf(target: ObservedTarget): string {
  return JSON.stringify([target.provider, target.model]);
}

function isFailureClass(type: string | null | undefined): type is FailureClass {
  return (ALL_FAILURE_CLASSES as readonly (string | null | undefined)[]).includes(type);
}

type ProviderCall = ReturnType<typeof createProviderCall>;

/**
 * `callTarget` that also tells `observations` how each attempt went: an answer with the latency the call measured,
 * a failure with its class. Nothing else changes: the answer or the failure goes on to the caller as it was.
 */
export function observedProviderCall(
  callTarget: ProviderCall,
  observations: TargetObservations,
): ProviderCall {
  return async function callTargetObserved(input, context) {
    try {
      const success = await callTarget(input, context);
      observations.recordAnswer(input.target, success.latencyMs);
      return success;
    } catch (error) {
      if (error instanceof ApplicationFailure && isFailureClass(error.type)) {
        observations.recordFailure(input.target, error.type);
      }
      throw error;
    }
  };
}
