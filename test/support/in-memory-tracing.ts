// OpenTelemetry registered globally for one test file, spans kept in memory: the W3C propagator and the
// AsyncLocalStorage context manager, as the processes install them.
import { randomBytes } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface InMemoryTracing {
  /** Every span ended so far. */
  ended(): ReadableSpan[];
  /** Forgets the spans ended so far. */
  reset(): void;
  /** Unregisters everything, so later files start from the API's no-op defaults. */
  close(): Promise<void>;
}

export function installInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return {
    ended: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    close: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** A caller's W3C `traceparent` with fresh random ids, and the ids it holds. */
export function callerTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
