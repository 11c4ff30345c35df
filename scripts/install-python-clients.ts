// `npm run python:install`: the pinned Python clients (openai, anthropic, openai-agents, langchain-openai) in a
// project-local virtual environment (.venv), for the gateway's real-client tests and examples. `npm test` runs it
// first with --if-missing: then it does nothing when the pins are in place, and a machine that cannot install them
// (no python3, no venv module, no registry) is told why and its Python tests are skipped, not failed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PYTHON_TEST_REQUIREMENTS, venvPython } from './python-clients';

const root = path.join(__dirname, '..');
const python = process.env.PYTHON ?? 'python3';
const ifMissing = process.argv.includes('--if-missing');

/** Says why nothing was installed; fatal only when asked for explicitly (CI wants to know). */
function giveUp(reason: string): never {
  process.stdout.write(
    `Python clients not installed: ${reason}; the gateway's Python client tests will be skipped\n`,
  );
  process.exit(ifMissing ? 0 : 1);
}

/** Whether the virtual environment already holds every pinned version. */
function pinsInPlace(): boolean {
  if (!existsSync(venvPython(root))) return false;
  const check = [
    'import importlib.metadata as m, sys',
    `pins = ${JSON.stringify(PYTHON_TEST_REQUIREMENTS)}`,
    'ok = all(m.version(n) == v for n, v in (p.split("==") for p in pins))',
    'sys.exit(0 if ok else 1)',
  ].join('\n');
  return spawnSync(venvPython(root), ['-c', check]).status === 0;
}

if (spawnSync(python, ['--version']).status !== 0) {
  // No python3 at all is the one case that is never an error: the tests skip themselves.
  process.stdout.write(`${python} not found: the gateway's Python client tests will be skipped\n`);
  process.exit(0);
}
if (ifMissing && pinsInPlace()) process.exit(0);
const venv = path.join(root, '.venv');
if (!existsSync(venvPython(root))) {
  const created = spawnSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
  if (created.status !== 0) giveUp(`"${python} -m venv" failed (on Debian: apt-get install python3-venv)`);
}
process.stdout.write(`Installing ${PYTHON_TEST_REQUIREMENTS.join(', ')} into ${venv} …\n`);
const installed = spawnSync(
  venvPython(root),
  ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PYTHON_TEST_REQUIREMENTS],
  { stdio: 'inherit' },
);
if (installed.status !== 0) giveUp('pip install failed');
const versions = execFileSync(
  venvPython(root),
  ['-c', 'import openai, anthropic; print(openai.__version__, anthropic.__version__)'],
  { encoding: 'utf8' },
).trim();
process.stdout.write(`Python clients in ${venv} (openai, anthropic: ${versions})\n`);
