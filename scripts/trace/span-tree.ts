// The trace screenshot's text half: an exporter that keeps a copy of every span, and the indented span tree printed
// for the docs. Script side.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Attributes the text tree shows, in this order, when a span has them; the rest stay in the backend. */
const SHOWN_ATTRIBUTES = [
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'switchyard.surface',
  'switchyard.route',
  'switchyard.attempt',
  'switchyard.target.index',
  'gen_ai.provider.name',
  'gen_ai.request.model',
  'switchyard.breaker.state_seen',
  'switchyard.outcome',
  'error.type',
  'switchyard.fallbacks',
  'switchyard.attempts',
  'switchyard.served_by',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'switchyard.cost.nano_usd',
];

/** Sends spans on to the OTLP exporter and keeps a copy, so the same run gives the picture and the text. */
export class KeepingSpanExporter implements SpanExporter {
  readonly kept: ReadableSpan[] = [];

  constructor(private readonly next: SpanExporter | undefined) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.kept.push(...spans);
    if (this.next) this.next.export(spans, done);
    else done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {
    await this.next?.shutdown();
  }

  async forceFlush(): Promise<void> {
    await this.next?.forceFlush?.();
  }
}

/** One line per span, children indented below their parent, in start order; the skip events under their span. */
export function spanTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const started = (span: ReadableSpan) => span.startTime[0] * 1e9 + span.startTime[1];
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => started(a) - started(b))) {
      // The worker's span of an activity repeats what the workflow's span of it shows: left out.
      const above = spans.find((other) => other.spanContext().spanId === parent);
      const repeats = (key: string) =>
        span.name.replace(/^RunActivity:/, 'StartActivity:') === above?.name &&
        above.attributes[key] === span.attributes[key];
      const shown = SHOWN_ATTRIBUTES.filter((key) => span.attributes[key] !== undefined && !repeats(key)).map(
        (key) => `${key}=${JSON.stringify(span.attributes[key])}`,
      );
      const breaker = String(span.attributes.temporalWorkflowId ?? '');
      if (/^Handle(Update|Signal):/.test(span.name))
        shown.push(`temporalWorkflowId=${JSON.stringify(breaker)}`);
      lines.push(`${'  '.repeat(depth)}${span.name}${shown.length ? `  ${shown.join(' ')}` : ''}`);
      for (const event of span.events) {
        const attributes = Object.entries(event.attributes ?? {})
          .filter(([key]) => key !== 'exception.stacktrace')
          .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
        lines.push(`${'  '.repeat(depth + 1)}event ${event.name}  ${attributes.join(' ')}`);
      }
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}
