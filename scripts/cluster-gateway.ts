// The gateway of `npm run cluster`: a keys file in the cluster's state folder, a first key when it has none, and
// `switchyard serve` in its own process on 127.0.0.1 with the workers' config. Script side.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startGatewayProcess, type GatewayProcess } from '../src/engine/gateway-process';
import { KeyStore } from '../src/gateway/key-store';

export interface ClusterGatewayOptions {
  /** The cluster's state folder; the keys file lives there, kept across runs. */
  readonly stateDirectory: string;
  /** The workers' config file. */
  readonly configFile: string;
  /** `host:port` of the Temporal front end. */
  readonly temporalAddress: string;
  readonly namespace: string;
  /** Port on 127.0.0.1, for callers and the workers' relay pushes. */
  readonly port: number;
  /** Added to the gateway's environment (the workers' provider keys are not needed, nor given). */
  readonly environment?: Readonly<Record<string, string>>;
}

export interface ClusterGateway {
  readonly process: GatewayProcess;
  readonly keysFile: string;
  /** A key made for this run because the file had no active one; shown once, kept in the file as its hash. */
  readonly newKey?: { readonly key: string; readonly id: string };
}

/** The origin workers may push streamed pieces to (`SWITCHYARD_RELAY_ORIGINS`) for a gateway on `port`. */
export function clusterGatewayOrigin(port: number): string {
  return `http://127.0.0.1:${port}`;
}

export async function startClusterGateway(options: ClusterGatewayOptions): Promise<ClusterGateway> {
  mkdirSync(options.stateDirectory, { recursive: true });
  const keysFile = path.join(options.stateDirectory, 'switchyard.keys.json');
  const keys = new KeyStore({ file: keysFile });
  // A key is printed only when made; with one already on file, the banner says how to make another.
  const created = keys.list().some((key) => key.revokedAt === undefined)
    ? undefined
    : keys.create({ routes: ['*'], label: 'npm run cluster' });
  const gateway = await startGatewayProcess({
    configFile: options.configFile,
    keysFile,
    temporalAddress: options.temporalAddress,
    namespace: options.namespace,
    port: options.port,
    ...(options.environment ? { environment: options.environment } : {}),
    // Its request log, one line per request, beside the workers' output.
    onOutput: (text) => process.stderr.write(text.replace(/^(?=.)/gm, '[gateway] ')),
  });
  return {
    process: gateway,
    keysFile,
    ...(created !== undefined ? { newKey: { key: created.key, id: created.stored.id } } : {}),
  };
}

/** What the running banner says about the gateway: where it is, its key, and a streamed call to try. */
export function clusterGatewayLines(gateway: ClusterGateway, route: string | undefined): string[] {
  const { url, relayUrl, child } = gateway.process;
  const key = gateway.newKey?.key ?? '<key>';
  return [
    `  gateway           ${url} (pid ${child.pid}; workers push streams to ${relayUrl}); keys ${gateway.keysFile}`,
    gateway.newKey !== undefined
      ? `  gateway key       ${gateway.newKey.key}   (all routes, shown once; kept for later runs, ` +
        `revoke: npx switchyard keys revoke ${gateway.newKey.id} --keys ${gateway.keysFile})`
      : `  gateway key       make one: npx switchyard keys create --routes '*' --keys ${gateway.keysFile}`,
    `\n  Stream through it: curl -N ${url}/v1/chat/completions -H "Authorization: Bearer ${key}" \\`,
    `    -H 'content-type: application/json' \\`,
    `    -d '{${route ? `"model":"${route}",` : ''}"stream":true,"messages":[{"role":"user","content":"Hello"}]}'`,
    `  or any OpenAI SDK: OPENAI_BASE_URL=${url}/v1 OPENAI_API_KEY=${key}`,
  ];
}
