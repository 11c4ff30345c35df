// Installs the worker process's Temporal runtime: log level and the Prometheus endpoint. Node side.
import { SwitchyardError } from '../config/branded-error';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { GEN_AI_OPERATION_DURATION_BUCKETS, GEN_AI_TOKEN_USAGE_BUCKETS } from '../routing/gen-ai-conventions';
import {
  ATTEMPT_LATENCY_MS_BUCKETS,
  CALL_COST_USD_BUCKETS,
  GenAiPrometheusMetric,
  SwitchyardMetric,
} from '../workflows/metric-names';

/** Port of the worker's Prometheus endpoint when `SWITCHYARD_METRICS_PORT` does not say. */
export const DEFAULT_METRICS_PORT = 9464;
/** Interface the endpoint binds to when `SWITCHYARD_METRICS_HOST` does not say: this machine only. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

export interface MetricsSettings {
  /**
   * TCP port of the Prometheus endpoint (`GET /metrics`); `false` turns the endpoint off.
   * @default `SWITCHYARD_METRICS_PORT` (a number, or `off`), else 9464
   */
  readonly port?: number | false;
  /**
   * Interface to bind; use `0.0.0.0` in a container so Prometheus can scrape it.
   * @default `SWITCHYARD_METRICS_HOST`, else '127.0.0.1'
   */
  readonly host?: string;
}

export class MetricsSettingsError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.MetricsSettingsError';

  override readonly name = 'MetricsSettingsError';
}

/** The endpoint settings from `SWITCHYARD_METRICS_PORT` / `SWITCHYARD_METRICS_HOST`. */
export function metricsSettingsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): Required<MetricsSettings> & { readonly portFromEnvironment: boolean } {
  const host = environment.SWITCHYARD_METRICS_HOST || DEFAULT_METRICS_HOST;
  const raw = environment.SWITCHYARD_METRICS_PORT?.trim();
  if (!raw) return { port: DEFAULT_METRICS_PORT, host, portFromEnvironment: false };
  if (['off', 'false', 'none', 'disabled'].includes(raw.toLowerCase())) {
    return { port: false, host, portFromEnvironment: true };
  }
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new MetricsSettingsError(
      `SWITCHYARD_METRICS_PORT must be a port number (1-65535) or "off", not "${raw}"`,
    );
  }
  return { port, host, portFromEnvironment: true };
}

export interface WorkerRuntimeOptions {
  /** The Prometheus endpoint. @default {@link metricsSettingsFromEnvironment} */
  readonly metrics?: MetricsSettings;
  /** Level of the SDK's own log lines. @default 'INFO' */
  readonly logLevel?: LogLevel;
  /** Where notes about the endpoint go (a busy default port, for example). @default stderr */
  readonly report?: (line: string) => void;
}

export interface WorkerRuntime {
  /** `http://host:port/metrics`, or undefined when the endpoint is off. */
  readonly metricsUrl: string | undefined;
}

function install(logLevel: LogLevel, bindAddress: string | undefined): void {
  Runtime.install({
    logger: new DefaultLogger(logLevel),
    ...(bindAddress
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress,
                histogramBucketOverrides: {
                  [SwitchyardMetric.callCost]: [...CALL_COST_USD_BUCKETS],
                  [SwitchyardMetric.attemptLatency]: [...ATTEMPT_LATENCY_MS_BUCKETS],
                  // The conventions advise these; the SDK's defaults are milliseconds, wrong for both.
                  [GenAiPrometheusMetric.tokenUsage]: [...GEN_AI_TOKEN_USAGE_BUCKETS],
                  [GenAiPrometheusMetric.operationDuration]: [...GEN_AI_OPERATION_DURATION_BUCKETS],
                },
              },
            },
          },
        }
      : {}),
  });
}

function isAddressInUse(error: unknown): boolean {
  return error instanceof Error && /address already in use|os error 98|EADDRINUSE/i.test(error.message);
}

/**
 * Installs the process's Temporal runtime with the Prometheus endpoint: the SDK's `temporal_*` series,
 * Switchyard's `switchyard_*` series and the GenAI conventions' `gen_ai_client_*` series on one `/metrics`.
 * Call it once, before any connection or worker is made (the runtime is a process-wide singleton). When the default port is taken — a second worker on the
 * same machine — the worker runs without an endpoint and says so; a port set explicitly must be free.
 */
export function installWorkerRuntime(options: WorkerRuntimeOptions = {}): WorkerRuntime {
  const fromEnvironment = metricsSettingsFromEnvironment();
  const port = options.metrics?.port ?? fromEnvironment.port;
  const host = options.metrics?.host ?? fromEnvironment.host;
  const explicit = options.metrics?.port !== undefined || fromEnvironment.portFromEnvironment;
  const logLevel = options.logLevel ?? 'INFO';
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (port === false) {
    install(logLevel, undefined);
    return { metricsUrl: undefined };
  }
  // IPv6 literals need brackets in a socket address and in a URL.
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const bindAddress = `${hostPart}:${port}`;
  try {
    install(logLevel, bindAddress);
  } catch (error) {
    if (!isAddressInUse(error)) throw error;
    if (explicit) {
      throw new MetricsSettingsError(
        `metrics port ${bindAddress} is in use: set SWITCHYARD_METRICS_PORT to a free port, or "off"`,
      );
    }
    report(
      `switchyard: metrics port ${bindAddress} is in use, so this worker serves no metrics ` +
        '(set SWITCHYARD_METRICS_PORT to a free port)',
    );
    install(logLevel, undefined);
    return { metricsUrl: undefined };
  }
  return { metricsUrl: `http://${hostPart}:${port}/metrics` };
}
