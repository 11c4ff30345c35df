// A small reader of the Prometheus text exposition format, for asserting on a worker's /metrics.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a scrape; comments and blank lines are skipped. */
export function parsePrometheusText(text: string): Sample[] {
  return text.split('\n').flatMap((line): Sample[] => {
    const match = SAMPLE_LINE.exec(line.trim());
    if (!match || line.startsWith('#')) return [];
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key!] = value!.replace(/\\(.)/g, '$1');
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sumOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((total, sample) => total + sample.value, 0);
}
