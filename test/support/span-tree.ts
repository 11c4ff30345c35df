// Reading the shape of a trace a test received: spans by id, a span's chain of parents, the spans below another.
import type { ReceivedSpan } from './otlp-receiver';

/** The spans of `spans` by their span id. */
export function spansById(spans: readonly ReceivedSpan[]): Map<string, ReceivedSpan> {
  return new Map(spans.map((span) => [span.spanId, span]));
}

/** The chain of span names from `span` up to the highest parent present, `span`'s own name first. */
export function ancestry(span: ReceivedSpan, spans: Map<string, ReceivedSpan>): string[] {
  const names: string[] = [];
  for (
    let at: ReceivedSpan | undefined = span;
    at;
    at = at.parentSpanId ? spans.get(at.parentSpanId) : undefined
  ) {
    names.push(at.name);
  }
  return names;
}

/** The one span named `name`; fails naming what was there when there is none or more than one. */
export function onlySpanNamed(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) {
    throw new Error(
      `expected one span named ${name}, found ${found.length} among ${spans.map((span) => span.name).join(', ')}`,
    );
  }
  return found[0]!;
}
