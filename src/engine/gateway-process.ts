// Runs `switchyard serve` in a process of its own against a Temporal cluster, as a deployment does: the cluster
// shape's gateway (`npm run cluster`) and the cluster suite's. Node side.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { SwitchyardError } from '../config/branded-error';
import { projectRoot } from './project-root';

export interface GatewayProcessOptions {
  /** The Switchyard config the gateway reads its routes from: the workers' config. */
  readonly configFile: string;
  /** The gateway keys file (`--keys`). */
  readonly keysFile: string;
  /** `host:port` of the Temporal front end. @default `TEMPORAL_ADDRESS`, else the profile (read by the gateway) */
  readonly temporalAddress?: string;
  /** @default `TEMPORAL_NAMESPACE`, else 'default' (read by the gateway) */
  readonly namespace?: string;
  /** Task queue of the workers it sends calls to. @default `SWITCHYARD_TASK_QUEUE`, else 'switchyard' */
  readonly taskQueue?: string;
  /** Port on 127.0.0.1 for callers and for the workers' relay pushes. @default 0: a free port */
  readonly port?: number;
  /** Added to this process's environment (OTEL_*, SWITCHYARD_PAYLOAD_STORE_DIR, …). @default nothing */
  readonly environment?: Readonly<Record<string, string>>;
  /** Receives everything the gateway prints (its start banner and request log are on stderr). */
  readonly onOutput?: (text: string) => void;
  /** How long to wait for it to listen, in milliseconds. @default 60000 */
  readonly startupTimeoutMs?: number;
}

export interface GatewayProcess {
  readonly child: ChildProcess;
  /** Base URL of the gateway, e.g. `http://127.0.0.1:4000` (OpenAI SDKs: add `/v1`). */
  readonly url: string;
  /** Where workers push a streamed call's pieces. */
  readonly relayUrl: string;
  /** SIGTERM, so open requests end; SIGKILL after `graceMs` (default 10000 ms). Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export class GatewayStartError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.GatewayStartError';

  override readonly name = 'GatewayStartError';
  constructor(
    message: string,
    /** What the process printed before it failed. */
    readonly output: string,
  ) {
    super(`${message}:\n${output}`);
  }
}

// The first line `switchyard serve` prints once both listeners are up.
const BANNER = /switchyard gateway at (http:\/\/\S+) \(relay for workers: (http:\/\/\S+)\)/;

/** Starts the gateway and resolves once it listens; rejects with what it printed if it exits or hangs first. */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const root = projectRoot();
  const argv = [
    path.join(root, 'bin', 'switchyard.js'),
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--config',
    options.configFile,
    '--keys',
    options.keysFile,
    ...(options.temporalAddress !== undefined ? ['--address', options.temporalAddress] : []),
    ...(options.namespace !== undefined ? ['--namespace', options.namespace] : []),
    ...(options.taskQueue !== undefined ? ['--task-queue', options.taskQueue] : []),
  ];
  const child = spawn(process.execPath, argv, {
    cwd: root,
    env: { ...process.env, ...options.environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = async (graceMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  try {
    const [url, relayUrl] = await new Promise<[string, string]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new GatewayStartError('the gateway did not listen in time', output)),
        options.startupTimeoutMs ?? 60_000,
      );
      let started = false;
      const listen = (chunk: Buffer) => {
        const text = chunk.toString();
        options.onOutput?.(text);
        // Kept until the banner only: the request log that follows is the caller's to keep.
        if (started) return;
        output += text;
        const banner = BANNER.exec(output);
        if (banner) {
          started = true;
          clearTimeout(timer);
          resolve([banner[1]!, banner[2]!]);
        }
      };
      child.stdout!.on('data', listen);
      child.stderr!.on('data', listen);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new GatewayStartError(`the gateway exited with ${code ?? signal}`, output));
      });
    });
    return { child, url, relayUrl, stop };
  } catch (error) {
    await stop(0);
    throw error;
  }
}
