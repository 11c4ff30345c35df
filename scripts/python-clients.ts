// Where the project-local Python environment lives and which `openai` client it pins. Node side.
import path from 'node:path';

/** The official `openai` Python client the gateway is tested with. */
export const PYTHON_OPENAI_VERSION = '3.57.0';

/** The virtual environment's interpreter under the project root. */
export function venvPython(root: string): string {
  return process.platform === 'win32'
    ? path.join(root, '.venv', 'Scripts', 'python.exe')
    : path.join(root, '.venv', 'bin', 'python');
}
