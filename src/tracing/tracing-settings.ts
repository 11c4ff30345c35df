// Whether and how a process exports traces, read from the standard OTEL_* variables and Switchyard's one opt-in
// for content. Node side.
import { SwitchyardError } from '../config/branded-error';

export class TracingSettingsError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.TracingSettingsError';

  override readonly name = 'TracingSettingsError';
}

/** Where spans go: an OTLP collector, or the process's stdout (for a look without a backend). */
export type TraceExporterKind = 'otlp' | 'console';

/** The OTLP transports the standard `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` names. */
export type OtlpProtocol = 'grpc' | 'http/protobuf' | 'http/json';

export interface TracingSettings {
  readonly exporter: TraceExporterKind;
  /** @default 'http/protobuf', the specification's default */
  readonly protocol: OtlpProtocol;
  /**
   * Prompts, system instructions and answers go into attempt spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`). Off, the spans name what was withheld instead. Keys never enter a span either way.
   * @default false (`SWITCHYARD_TRACE_CONTENT=true` turns it on)
   */
  readonly captureContent: boolean;
}

const PROTOCOLS: readonly OtlpProtocol[] = ['grpc', 'http/protobuf', 'http/json'];
const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off', ''];

function flag(environment: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (environment[name] ?? '').trim().toLowerCase();
  if (TRUE_WORDS.includes(raw)) return true;
  if (FALSE_WORDS.includes(raw)) return false;
  throw new TracingSettingsError(`${name} must be true or false, not "${environment[name]}"`);
}

/**
 * The tracing settings of this process, or undefined when tracing is off. It is off by default, as an operator
 * who set nothing expects: on when `OTEL_TRACES_EXPORTER` names `otlp` or `console`, or when an OTLP endpoint is
 * set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and always off with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. The exporters read their own endpoint, headers and
 * timeout variables; the sampler (`OTEL_TRACES_SAMPLER`, `_ARG`), the batch (`OTEL_BSP_*`) and the resource
 * (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) are read by the SDK as the specification says.
 */
export function tracingSettingsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): TracingSettings | undefined {
  const captureContent = flag(environment, 'SWITCHYARD_TRACE_CONTENT');
  if (flag(environment, 'OTEL_SDK_DISABLED')) return undefined;
  const named = (environment.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  const endpoint =
    (environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim() ||
    (environment.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  let exporter: TraceExporterKind;
  if (named === 'none') return undefined;
  if (named === 'otlp' || named === 'console') exporter = named;
  else if (named !== '') {
    throw new TracingSettingsError(
      `OTEL_TRACES_EXPORTER must be otlp, console or none, not "${environment.OTEL_TRACES_EXPORTER}"`,
    );
  } else if (endpoint !== '') exporter = 'otlp';
  else return undefined;
  const protocolName = environment.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (environment[protocolName] ?? 'http/protobuf').trim().toLowerCase();
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new TracingSettingsError(
      `${protocolName} must be one of ${PROTOCOLS.join(', ')}, not "${environment[protocolName]}"`,
    );
  }
  return { exporter, protocol: protocol as OtlpProtocol, captureContent };
}
