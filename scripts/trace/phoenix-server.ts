// Arize Phoenix as a child process for the trace screenshot: `phoenix serve` on free ports of 127.0.0.1, no
// telemetry, a throwaway working directory. Script side.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { withProgress } from '../demo/progress';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Phoenix {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `phoenix serve` on 127.0.0.1 and resolves once its health check answers. */
export async function startPhoenix(executable: string, workingDirectory: string): Promise<Phoenix> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(executable, ['serve'], {
    stdio: 'ignore',
    env: {
      ...process.env,
      PHOENIX_WORKING_DIR: workingDirectory,
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(grpcPort),
      // Nothing leaves the machine: Phoenix would otherwise report usage.
      PHOENIX_TELEMETRY_ENABLED: 'false',
    },
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`phoenix serve exited with ${code}`))),
  );
  const healthy = (async () => {
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; ) {
      const ok = await fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error('phoenix serve did not answer its health check in 180 s');
  })();
  await withProgress('phoenix serve', Promise.race([healthy, exited]));
  return {
    url,
    stop: async () => {
      exited.catch(() => undefined);
      if (child.exitCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
