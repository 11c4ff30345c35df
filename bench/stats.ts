// Percentiles and summaries of latency samples, in milliseconds. Bench side (plain Node).

/** p50 / p90 / p99 / max of a sample set, rounded to 0.1 ms; `n` is the sample count. */
export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

const round = (value: number, digits = 1): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** The q-quantile (0..1) by linear interpolation between closest ranks; NaN for no samples. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const weight = position - lower;
  return sorted[lower]! * (1 - weight) + sorted[upper]! * weight;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 0.5);
}

export function summarize(samples: readonly number[]): Summary {
  const mean = samples.length ? samples.reduce((sum, value) => sum + value, 0) / samples.length : Number.NaN;
  return {
    n: samples.length,
    p50: round(percentile(samples, 0.5)),
    p90: round(percentile(samples, 0.9)),
    p99: round(percentile(samples, 0.99)),
    max: round(samples.length ? Math.max(...samples) : Number.NaN),
    mean: round(mean),
  };
}

export { round };
