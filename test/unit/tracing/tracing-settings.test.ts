// When a process exports traces, read from the standard OTEL_* variables: off unless asked, every bad value named.
import { tracingSettingsFromEnvironment } from '../../../src/tracing/tracing-settings';

test('off when nothing is set, and when compose passes the variables empty', () => {
  expect(tracingSettingsFromEnvironment({})).toBeUndefined();
  expect(
    tracingSettingsFromEnvironment({
      OTEL_TRACES_EXPORTER: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ' ',
      SWITCHYARD_TRACE_CONTENT: '',
    }),
  ).toBeUndefined();
});

test('on with an OTLP endpoint alone, over the specification default protocol, content withheld', () => {
  expect(tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
    exporter: 'otlp',
    protocol: 'http/protobuf',
    captureContent: false,
  });
  expect(
    tracingSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
  ).toMatchObject({ exporter: 'otlp' });
});

test('the exporter and protocol as named, the traces-only protocol winning over the general one', () => {
  expect(tracingSettingsFromEnvironment({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({
    exporter: 'console',
  });
  expect(
    tracingSettingsFromEnvironment({
      OTEL_TRACES_EXPORTER: 'OTLP',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
    }),
  ).toMatchObject({ exporter: 'otlp', protocol: 'grpc' });
});

test('none and OTEL_SDK_DISABLED turn it off even with an endpoint', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  expect(tracingSettingsFromEnvironment({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
});

test('content capture only when opted in', () => {
  const on = { OTEL_TRACES_EXPORTER: 'otlp', SWITCHYARD_TRACE_CONTENT: 'true' };
  expect(tracingSettingsFromEnvironment(on)?.captureContent).toBe(true);
  expect(tracingSettingsFromEnvironment({ ...on, SWITCHYARD_TRACE_CONTENT: 'off' })?.captureContent).toBe(
    false,
  );
});

test('a value it cannot use is refused, naming the variable and the value', () => {
  expect(() => tracingSettingsFromEnvironment({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
    /OTEL_TRACES_EXPORTER must be otlp, console or none, not "zipkin"/,
  );
  expect(() =>
    tracingSettingsFromEnvironment({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'udp',
    }),
  ).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be one of grpc, http\/protobuf, http\/json, not "udp"/);
  expect(() => tracingSettingsFromEnvironment({ SWITCHYARD_TRACE_CONTENT: 'maybe' })).toThrow(
    /SWITCHYARD_TRACE_CONTENT must be true or false, not "maybe"/,
  );
});
