// `switchyard serve` reads the tracing settings before it connects: a bad one is a usage error naming the variable.
import path from 'node:path';
import { ExitCode } from '../../../src/cli/exit-codes';
import { run, TEST_CONFIG, writeTempFile } from './cli-test-io';

test('an OTEL_TRACES_EXPORTER the gateway cannot use is refused before anything connects', async () => {
  const config = writeTempFile('switchyard.config.json', TEST_CONFIG);
  const keys = path.join(path.dirname(config), 'keys.json');
  process.env.OTEL_TRACES_EXPORTER = 'jaeger';
  try {
    const { code, err } = await run(['serve', '--config', config, '--keys', keys, '--port', '0']);
    expect(code).toBe(ExitCode.usage);
    expect(err).toContain('OTEL_TRACES_EXPORTER');
  } finally {
    delete process.env.OTEL_TRACES_EXPORTER;
  }
});
