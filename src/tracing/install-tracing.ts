// Installs the process's OpenTelemetry tracer provider from the OTEL_* settings: resource, sampler, batch and
// exporter. Node side; the worker, the gateway and the CLI's call share it.
import { hostname } from 'node:os';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import { tracingSettingsFromEnvironment, type TracingSettings } from './tracing-settings';

export interface InstallTracingOptions {
  /** `service.name` of this process's spans, unless `OTEL_SERVICE_NAME` says otherwise. */
  readonly serviceName: string;
  /** @default {@link tracingSettingsFromEnvironment} (undefined there: tracing off, nothing installed) */
  readonly settings?: TracingSettings;
  /** Where spans go instead of the exporter the settings name (tests, embedders with their own). */
  readonly spanExporter?: SpanExporter;
}

export interface TracingHandle {
  readonly settings: TracingSettings;
  readonly resource: Resource;
  /** Receives every span of the process, workflow spans included (the worker hands them over through a sink). */
  readonly spanProcessor: SpanProcessor;
  /** Sends what is batched now; call it before a short-lived process exits. */
  forceFlush(): Promise<void>;
  /** Flushes and stops the exporter. */
  shutdown(): Promise<void>;
}

let installed: TracingHandle | undefined;

function exporterFor(settings: TracingSettings): SpanExporter {
  if (settings.exporter === 'console') {
    const { ConsoleSpanExporter } =
      require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
    return new ConsoleSpanExporter();
  }
  // Loaded on demand: a process exporting over HTTP never loads gRPC (and the reverse).
  switch (settings.protocol) {
    case 'grpc': {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc');
      return new OTLPTraceExporter();
    }
    case 'http/json': {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter();
    }
    case 'http/protobuf': {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter();
    }
    default: {
      const unknownProtocol: never = settings.protocol;
      throw new Error(`unknown OTLP protocol ${String(unknownProtocol)}`);
    }
  }
}

/**
 * Installs the global tracer provider of this process when tracing is on (see
 * {@link tracingSettingsFromEnvironment}), with the W3C trace-context propagator and an AsyncLocalStorage context
 * manager, and returns its handle; returns undefined when tracing is off. One provider per process: a second call
 * returns the first handle, so a process running a worker and a gateway exports through one pipeline.
 */
export function installTracing(options: InstallTracingOptions): TracingHandle | undefined {
  if (installed) return installed;
  const settings = options.settings ?? tracingSettingsFromEnvironment();
  if (!settings) return undefined;
  const { NodeTracerProvider } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { Resource, envDetectorSync } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  // The environment's resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins over the defaults. The process's
  // command line is left out on purpose: it may hold a secret an operator passed as an argument.
  const resource = Resource.default()
    .merge(
      new Resource({
        'service.name': options.serviceName,
        'host.name': hostname(),
        'process.pid': process.pid,
      }),
    )
    .merge(envDetectorSync.detect());
  const spanProcessor = new BatchSpanProcessor(options.spanExporter ?? exporterFor(settings));
  // The sampler comes from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (parent-based always-on by default).
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  installed = {
    settings,
    resource,
    spanProcessor,
    forceFlush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
    },
  };
  return installed;
}

/** The handle installed in this process, if tracing is on. */
export function installedTracing(): TracingHandle | undefined {
  return installed;
}
