// Whether the pinned Python clients can drive the gateway here, or why their tests are skipped. Test side.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { venvPython } from '../../scripts/python-clients';

const root = path.join(__dirname, '../..');

export type PythonClients = { readonly python: string } | { readonly skipReason: string };

let found: PythonClients | undefined;

/**
 * The virtual environment's python when it imports every client the tests use (npm test installs them first,
 * see scripts/install-python-clients.ts), else the reason the Python tests are skipped on this machine.
 */
export function pythonClients(): PythonClients {
  if (found) return found;
  const python = venvPython(root);
  if (spawnSync(process.env.PYTHON ?? 'python3', ['--version']).status !== 0) {
    found = { skipReason: 'python3 not found' };
  } else if (!existsSync(python)) {
    found = { skipReason: `${python} is missing (npm run python:install could not create it)` };
  } else {
    const check = spawnSync(python, ['-c', 'import openai, anthropic, agents, langchain_openai']);
    found =
      check.status === 0
        ? { python }
        : { skipReason: `the Python clients are not installed in .venv (npm run python:install)` };
  }
  return found;
}

/** `test`, or `test.skip` with the reason printed once, for a test that drives the gateway from Python. */
export function pythonTest(area: string): jest.It {
  const clients = pythonClients();
  if ('skipReason' in clients) {
    process.stdout.write(`[${area}] ${clients.skipReason}: the Python client tests are skipped\n`);
    return test.skip;
  }
  return test;
}
