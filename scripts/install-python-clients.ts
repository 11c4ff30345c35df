// `npm run python:install`: the official `openai` Python client in a project-local virtual environment (.venv),
// for the gateway's Python tests and examples. Without python3 it says so and does nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PYTHON_OPENAI_VERSION, venvPython } from './python-clients';

const root = path.join(__dirname, '..');
const python = process.env.PYTHON ?? 'python3';

if (spawnSync(python, ['--version']).status !== 0) {
  process.stdout.write(`${python} not found: the gateway's Python client tests will be skipped\n`);
  process.exit(0);
}
const venv = path.join(root, '.venv');
if (!existsSync(venvPython(root))) {
  execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
}
execFileSync(
  venvPython(root),
  ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `openai==${PYTHON_OPENAI_VERSION}`],
  { stdio: 'inherit' },
);
const version = execFileSync(venvPython(root), ['-c', 'import openai; print(openai.__version__)'], {
  encoding: 'utf8',
}).trim();
process.stdout.write(`Python openai client ${version} in ${venv}\n`);
