// Finds a free TCP port below 32768 on the loopback interface. Node side.
import net from 'node:net';

/**
 * Temporal's SQL schema keeps a service's membership port in a SMALLINT column (`cluster_membership.rpc_port`),
 * so a port from the OS's ephemeral range (32768 and up) fails the service's start. Pick from below it.
 */
export const HIGHEST_SMALLINT_PORT = 32_767;
const LOWEST_PORT = 20_000;

function isFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port in [20000, 32767] that nothing listens on now; `taken` excludes ports already handed out. */
export async function freeLowPort(
  host = '127.0.0.1',
  taken: ReadonlySet<number> = new Set(),
): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (HIGHEST_SMALLINT_PORT - LOWEST_PORT + 1));
    if (!taken.has(port) && (await isFree(port, host))) return port;
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${HIGHEST_SMALLINT_PORT} on ${host}`);
}
