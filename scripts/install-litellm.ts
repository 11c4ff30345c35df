// `npm run bench:litellm:install`: LiteLLM's proxy, pinned with its dependencies, in a project-local virtual
// environment (.bench/litellm-venv), for the bench's peer lane. Without python3 it says so and does nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { LITELLM_CONSTRAINTS, LITELLM_VERSION, litellmVenv, venvExecutable } from './python-clients';

const root = path.join(__dirname, '..');
const python = process.env.PYTHON ?? 'python3';

if (spawnSync(python, ['--version']).status !== 0) {
  process.stdout.write(`${python} not found: the bench's LiteLLM lane will be skipped\n`);
  process.exit(0);
}
const venv = litellmVenv(root);
const venvPython = venvExecutable(venv, 'python');
if (!existsSync(venvPython)) {
  execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
}
// The constraints file pins every package the proxy extra resolves to, so two installs get the same set.
execFileSync(
  venvPython,
  [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--constraint',
    path.join(root, LITELLM_CONSTRAINTS),
    `litellm[proxy]==${LITELLM_VERSION}`,
  ],
  { stdio: 'inherit' },
);
execFileSync(venvPython, ['-m', 'pip', 'check', '--disable-pip-version-check'], { stdio: 'inherit' });
// Read the version from the package metadata: importing litellm itself would reach for its cost map.
const version = execFileSync(
  venvPython,
  ['-c', 'import importlib.metadata as m; print(m.version("litellm"))'],
  { encoding: 'utf8' },
).trim();
if (version !== LITELLM_VERSION) {
  throw new Error(`installed litellm ${version}, expected ${LITELLM_VERSION}`);
}
process.stdout.write(`LiteLLM ${version} in ${path.relative(root, venv)}\n`);
