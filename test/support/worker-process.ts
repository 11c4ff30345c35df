// Test workers in OS processes of their own, for tests that SIGKILL them or read their logs: start and wait.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.join(__dirname, '../..');

export interface WorkerProcessOptions {
  /** The script to run with `node --require tsx/cjs`, relative to the repository root. */
  readonly script: string;
  /** Added to this process's environment. */
  readonly environment: Readonly<Record<string, string>>;
  /** What the process prints (on stdout or stderr) once it polls. @default 'ready' */
  readonly readyText?: string;
  /** Receives everything the process prints, from its start to its end. */
  readonly onOutput?: (text: string) => void;
  /** Called as soon as the process exists, so a test can kill it even if it never gets ready. */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** Starts `options.script` in its own process and resolves once it printed its ready text. */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(root, options.script)], {
    cwd: root,
    env: { ...process.env, ...options.environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  options.onSpawn?.(child);
  const readyText = options.readyText ?? 'ready';
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const listen = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      options.onOutput?.(text);
      if (output.includes(readyText)) resolve();
    };
    child.stdout!.on('data', listen);
    child.stderr!.on('data', listen);
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code}:\n${output}`)));
  });
  return child;
}

/** An environment variable a worker process cannot run without. */
export function requiredEnvironment(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
