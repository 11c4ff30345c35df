// Where the worker's Prometheus endpoint listens: SWITCHYARD_METRICS_PORT / SWITCHYARD_METRICS_HOST.
import {
  DEFAULT_METRICS_HOST,
  DEFAULT_METRICS_PORT,
  metricsSettingsFromEnvironment,
  MetricsSettingsError,
} from '../../../src/metrics/worker-runtime';

test('defaults to 127.0.0.1:9464', () => {
  expect(metricsSettingsFromEnvironment({})).toEqual({
    port: DEFAULT_METRICS_PORT,
    host: DEFAULT_METRICS_HOST,
    portFromEnvironment: false,
  });
  expect(DEFAULT_METRICS_PORT).toBe(9464);
  expect(DEFAULT_METRICS_HOST).toBe('127.0.0.1');
});

test('a port, a host, or off', () => {
  expect(
    metricsSettingsFromEnvironment({ SWITCHYARD_METRICS_PORT: '9100', SWITCHYARD_METRICS_HOST: '0.0.0.0' }),
  ).toEqual({
    port: 9100,
    host: '0.0.0.0',
    portFromEnvironment: true,
  });
  expect(metricsSettingsFromEnvironment({ SWITCHYARD_METRICS_PORT: 'off' }).port).toBe(false);
  expect(metricsSettingsFromEnvironment({ SWITCHYARD_METRICS_PORT: 'OFF' }).port).toBe(false);
});

test.each(['0', '65536', '9.5', 'ninety'])('refuses SWITCHYARD_METRICS_PORT=%s, naming it', (value) => {
  expect(() => metricsSettingsFromEnvironment({ SWITCHYARD_METRICS_PORT: value })).toThrow(
    MetricsSettingsError,
  );
  expect(() => metricsSettingsFromEnvironment({ SWITCHYARD_METRICS_PORT: value })).toThrow(`not "${value}"`);
});
