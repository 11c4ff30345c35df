// Where the project-local Python environments live and which packages they pin. Node side.
import path from 'node:path';

/** The official `openai` Python client the gateway is tested with. */
export const PYTHON_OPENAI_VERSION = '3.57.0';

/** The official `anthropic` Python client, for the gateway's Messages surface. */
export const PYTHON_ANTHROPIC_VERSION = '2.10.0';

/** The OpenAI Agents SDK (`agents`), driven through the gateway with its Chat Completions model. */
export const PYTHON_OPENAI_AGENTS_VERSION = '0.24.0';

/** LangChain's `ChatOpenAI`, driven through the gateway with `bind_tools`. */
export const PYTHON_LANGCHAIN_OPENAI_VERSION = '1.7.4';

/** Every Python package the gateway's tests drive it with, as pip requirements. */
export const PYTHON_TEST_REQUIREMENTS = [
  `openai==${PYTHON_OPENAI_VERSION}`,
  `anthropic==${PYTHON_ANTHROPIC_VERSION}`,
  `openai-agents==${PYTHON_OPENAI_AGENTS_VERSION}`,
  `langchain-openai==${PYTHON_LANGCHAIN_OPENAI_VERSION}`,
] as const;

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
