// `switchyard worker` refuses settings it cannot use before it starts anything: exit 2, the variable named.
import { ExitCode } from '../../../src/cli/exit-codes';
import { run, TEST_CONFIG, writeTempFile } from './cli-test-io';

const BAD_KEY = 'not-a-key-%%%';

afterEach(() => {
  delete process.env.SWITCHYARD_CODEC_KEY;
});

test('an unusable payload key is a usage error naming the variable, never its value', async () => {
  process.env.SWITCHYARD_CODEC_KEY = BAD_KEY;
  // Nothing listens on this address: a worker that connected first would exit 4, not 2.
  const { code, err } = await run([
    'worker',
    '--config',
    writeTempFile('switchyard.config.json', TEST_CONFIG),
    '--address',
    '127.0.0.1:1',
  ]);
  expect(code).toBe(ExitCode.usage);
  expect(err).toContain('SWITCHYARD_CODEC_KEY');
  expect(err).not.toContain(BAD_KEY);
});
