// `npm run demo` end to end, as a newcomer runs it: its own dev server, fake provider and worker, every step of
// the tour. Each step fails the demo when what it shows stops holding, so a change that breaks the story (a
// pause left by one step that starves the next, say) fails here instead of on a newcomer's first run.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '../..');

/** Up to a few minutes: the dev server starts, the workflows bundle, and the tour waits out a cooldown and an outage. */
jest.setTimeout(240_000);

test('the demo tours every step and exits 0, with the budget refusal sending nothing', async () => {
  // No real keys, ever: the live step is skipped rather than calling a provider from a test.
  const { OPENAI_API_KEY: _openai, ANTHROPIC_API_KEY: _anthropic, ...environment } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'scripts/demo.ts')],
    { cwd: root, env: environment, timeout: 220_000, maxBuffer: 16 * 1024 * 1024 },
  );
  for (let step = 1; step <= 6; step += 1) expect(stdout).toContain(`▶ ${step}/6 `);
  expect(stdout).toContain('Hello from the second target!');
  expect(stdout).toContain('BudgetExceeded:');
  expect(stdout).toContain('requests sent to any provider for the refused call: 0');
  expect(stdout).toContain('▶ Done');
});
