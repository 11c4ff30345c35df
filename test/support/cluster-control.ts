// Lets cluster tests stop and start the local cluster's Temporal services, which the jest parent process owns:
// a loopback HTTP endpoint (global setup) and its client (tests). Test side.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import {
  TEMPORAL_SERVICES,
  type LocalCluster,
  type TemporalServiceName,
} from '../../src/engine/temporal-cluster';

/** Where the control endpoint listens; set by the cluster project's global setup for local clusters. */
export const CONTROL_URL_VARIABLE = 'SWITCHYARD_CLUSTER_CONTROL_URL';
/**
 * A shell command that restarts the history service of one's own cluster (e.g. `kubectl rollout restart
 * deployment/temporal-history && kubectl rollout status deployment/temporal-history`); it must return once
 * history serves again.
 */
export const RESTART_HISTORY_COMMAND_VARIABLE = 'SWITCHYARD_CLUSTER_RESTART_HISTORY';

export interface ClusterControl {
  readonly url: string;
  close(): Promise<void>;
}

function isService(name: string): name is TemporalServiceName {
  return (TEMPORAL_SERVICES as readonly string[]).includes(name);
}

/** Serves `POST /services/<name>/stop?how=clean|kill` and `POST /services/<name>/start` on 127.0.0.1. */
export async function startClusterControl(cluster: LocalCluster): Promise<ClusterControl> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://control');
    const match = /^\/services\/([a-z]+)\/(stop|start)$/.exec(url.pathname);
    const answer = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST' || !match || !isService(match[1]!)) {
      answer(404, { error: `unknown control request ${request.method} ${url.pathname}` });
      return;
    }
    const service = match[1] as TemporalServiceName;
    const how = url.searchParams.get('how') === 'kill' ? 'kill' : 'clean';
    const action = match[2] === 'stop' ? cluster.stopService(service, how) : cluster.startService(service);
    action.then(
      () => answer(200, { service, pid: cluster.processes[service].pid }),
      (error: unknown) => answer(500, { error: String(error) }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function control(path: string): Promise<{ pid?: number }> {
  const base = process.env[CONTROL_URL_VARIABLE];
  if (!base) throw new Error(`${CONTROL_URL_VARIABLE} is not set: the cluster was not started by this suite`);
  const response = await fetch(`${base}${path}`, { method: 'POST' });
  const body = (await response.json()) as { pid?: number; error?: string };
  if (!response.ok) throw new Error(`cluster control ${path}: ${body.error ?? response.status}`);
  return body;
}

export function stopService(service: TemporalServiceName, how: 'clean' | 'kill'): Promise<{ pid?: number }> {
  return control(`/services/${service}/stop?how=${how}`);
}

export function startService(service: TemporalServiceName): Promise<{ pid?: number }> {
  return control(`/services/${service}/start`);
}

/** How this run can restart history: the local cluster's control, one's own command, or not at all. */
export function historyRestartMethod(): 'control' | 'command' | undefined {
  if (process.env[CONTROL_URL_VARIABLE]) return 'control';
  if (process.env[RESTART_HISTORY_COMMAND_VARIABLE]) return 'command';
  return undefined;
}

/** Runs one's own restart command (see {@link RESTART_HISTORY_COMMAND_VARIABLE}). */
export async function runRestartHistoryCommand(): Promise<void> {
  await promisify(execFile)('sh', ['-c', process.env[RESTART_HISTORY_COMMAND_VARIABLE]!], {
    timeout: 600_000,
  });
}
