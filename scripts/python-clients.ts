// Where the project-local Python environments live and which packages they pin. Node side.
import path from 'node:path';

/** The official `openai` Python client the gateway is tested with. */
export const PYTHON_OPENAI_VERSION = '3.57.0';

/**
 * The LiteLLM release the bench's peer lane runs (its proxy extra). Keep it below 1.107.0: that release was
 * compromised. Its dependencies are pinned by {@link LITELLM_CONSTRAINTS}.
 */
export const LITELLM_VERSION = '1.79.3';

/** The pip constraints file pinning LiteLLM's dependencies, relative to the project root. */
export const LITELLM_CONSTRAINTS = path.join('bench', 'litellm-constraints.txt');

/** The LiteLLM virtual environment under the project root (git-ignored). */
export function litellmVenv(root: string): string {
  return path.join(root, '.bench', 'litellm-venv');
}

/** An executable of the virtual environment at `venv` (`python`, or a console script such as `litellm`). */
export function venvExecutable(venv: string, name: string): string {
  return process.platform === 'win32'
    ? path.join(venv, 'Scripts', `${name}.exe`)
    : path.join(venv, 'bin', name);
}

/** The virtual environment's interpreter under the project root. */
export function venvPython(root: string): string {
  return venvExecutable(path.join(root, '.venv'), 'python');
}
