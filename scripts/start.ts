// `npm start`: the long-running dev stack — dev server with persistence, a worker, optionally the fake provider.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readCodecKeyring } from '../src/codec/codec-key';
import { CodecServerCodec } from '../src/codec/codec-server-codec';
import { payloadLimitFromEnvironment } from '../src/codec/payload-limits';
import { PAYLOAD_STORE_VARIABLES, payloadStoreFromEnvironment } from '../src/codec/payload-store-settings';
import { startCodecServer, type CodecServer } from '../src/codec/codec-server';
import type { Config } from '../src/config/config';
import { configPath, loadConfig, parseConfig } from '../src/config/load-config';
import type { DevServer } from '../src/engine';
import type { FakeProvider } from '../src/fake-provider';
import { startGateway, type Gateway } from '../src/gateway/gateway-server';
import { KeyStore } from '../src/gateway/key-store';
import { installWorkerRuntime } from '../src/metrics/worker-runtime';
import { devGatewayKey } from './start-gateway-key';
import { demoConfigInput, FAKE_PROVIDER_KEYS, liveKeysFromEnvironment } from './demo/demo-config';
import {
  startFake,
  startServerWithProgress,
  startWorkerAndClient,
  type WorkerAndClient,
} from './demo/demo-stack';
import { heading, say } from './demo/progress';

const USAGE = `Usage: npm start [-- options]

Runs the Temporal dev server (workflows kept in .temporal/dev.db), its Web UI and a Switchyard worker until
Ctrl-C. The worker reads switchyard.config.json (or --config / SWITCHYARD_CONFIG); without one it runs the
demo config on the fake provider.

Options:
  --config <file>      Switchyard config for the worker          default: SWITCHYARD_CONFIG, ./switchyard.config.json
  --fake-provider      also run the fake OpenAI + Anthropic provider (always on with the demo config)
  --fake-port <port>   port of the fake provider                 default: 4010
  --port <port>        Temporal front end (gRPC)                  default: 7233
  --ui-port <port>     Temporal Web UI                            default: 8233
  --db <file>          SQLite file of the dev server              default: .temporal/dev.db
  --codec-port <port>  codec server for the Web UI, run when SWITCHYARD_CODEC_KEY or
                       SWITCHYARD_PAYLOAD_STORE_DIR is set                            default: 8888
  --gateway-port <port>  the OpenAI/Anthropic-compatible gateway (switchyard serve)      default: 4000
  --no-gateway         no gateway
  --no-worker          only the dev server (and fake provider): run workers yourself
  -h, --help           this text

The worker's metrics are at http://127.0.0.1:9464/metrics (SWITCHYARD_METRICS_PORT=<port>|off).
With SWITCHYARD_CODEC_KEY set, prompts and answers are encrypted in history and the Web UI decodes them
through a local codec server (see "switchyard codec-server --help").`;

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 65_535)
    throw new Error(`--${name} must be a port number`);
  return number;
}

/** The worker's codec settings from the environment, for the codec server. */
function codecServerSettings(keyring: ReturnType<typeof readCodecKeyring>) {
  const limitBytes = payloadLimitFromEnvironment();
  const payloadStore = payloadStoreFromEnvironment(limitBytes);
  return { limitBytes, ...(keyring ? { keyring } : {}), ...(payloadStore ? { payloadStore } : {}) };
}

/** Fails early, naming the flag, when a port the stack needs is taken (often: a stack already running). */
async function ensureFree(portNumber: number, flag: string): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(portNumber, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
  if (!free)
    throw new Error(
      `port ${portNumber} is in use (is a stack already running?); choose another with ${flag}`,
    );
}

interface WorkerConfig {
  readonly config: Config;
  /** Where it came from, in words. */
  readonly source: string;
  /** The file the CLI can be pointed at. */
  readonly file: string;
  readonly usesFake: boolean;
}

/** The user's config file when there is one, else the demo config on the fake provider (written to .temporal/). */
function workerConfig(
  explicit: string | undefined,
  fake: FakeProvider | undefined,
  root: string,
): WorkerConfig | 'needs-fake' {
  const file = configPath(explicit);
  if (explicit !== undefined || process.env.SWITCHYARD_CONFIG || existsSync(file)) {
    return { config: loadConfig(file), source: file, file, usesFake: false };
  }
  if (!fake) return 'needs-fake';
  const input = demoConfigInput(fake, liveKeysFromEnvironment());
  const demoFile = path.join(root, '.temporal', 'start.config.json');
  writeFileSync(demoFile, `${JSON.stringify(input, null, 2)}\n`);
  return {
    config: parseConfig(input, demoFile),
    source: `the demo config on the fake provider (no ${path.relative(root, file) || file}), written to ${demoFile}`,
    file: demoFile,
    usesFake: true,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string' },
      'fake-provider': { type: 'boolean' },
      'fake-port': { type: 'string' },
      port: { type: 'string' },
      'ui-port': { type: 'string' },
      db: { type: 'string' },
      'codec-port': { type: 'string' },
      'gateway-port': { type: 'string' },
      'no-gateway': { type: 'boolean' },
      'no-worker': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    say(USAGE);
    return;
  }
  const root = path.join(__dirname, '..');
  mkdirSync(path.join(root, '.temporal'), { recursive: true });
  const dbFilename = path.resolve(values.db ?? path.join(root, '.temporal', 'dev.db'));
  const runtime = values['no-worker']
    ? { metricsUrl: undefined }
    : installWorkerRuntime({ logLevel: 'WARN' });

  let server: DevServer | undefined;
  let fake: FakeProvider | undefined;
  let stack: WorkerAndClient | undefined;
  let codecServer: CodecServer | undefined;
  let gateway: Gateway | undefined;
  const stop = async () => {
    await gateway?.close().catch(() => undefined);
    await stack?.close().catch(() => undefined);
    await fake?.close();
    await server?.stop();
    await codecServer?.close();
  };
  try {
    heading(
      `Starting the Temporal dev server (workflows kept in ${path.relative(process.cwd(), dbFilename)})`,
    );
    const ports = { port: port('port', values.port, 7233), uiPort: port('ui-port', values['ui-port'], 8233) };
    await ensureFree(ports.port, '--port');
    await ensureFree(ports.uiPort, '--ui-port');
    // With a codec key the worker encrypts payloads, with a payload store it keeps large ones outside history;
    // the Web UI reads either through a local codec server with the worker's codecs.
    const keyring = readCodecKeyring();
    const storeOn = Boolean(process.env[PAYLOAD_STORE_VARIABLES.directory]?.trim());
    if (keyring || storeOn) {
      const codecPort = port('codec-port', values['codec-port'], 8888);
      await ensureFree(codecPort, '--codec-port');
      const uiOrigins = [`http://127.0.0.1:${ports.uiPort}`, `http://localhost:${ports.uiPort}`];
      codecServer = await startCodecServer({
        // Decodes like the worker; encodes without writing into the shared payload store.
        codec: new CodecServerCodec(codecServerSettings(keyring)),
        port: codecPort,
        allowedOrigins: uiOrigins,
      });
    }
    server = await startServerWithProgress({
      ...ports,
      dbFilename,
      ...(codecServer ? { uiCodecEndpoint: codecServer.url } : {}),
    });

    const startFakeProvider = async () => {
      fake = await startFake({ port: port('fake-port', values['fake-port'], 4010) });
      return fake;
    };
    if (values['fake-provider']) await startFakeProvider();
    let chosen: WorkerConfig | undefined;
    if (!values['no-worker']) {
      const found = workerConfig(values.config, fake, root);
      // No config of the user's: the demo config needs the fake provider.
      chosen =
        found === 'needs-fake'
          ? (workerConfig(values.config, await startFakeProvider(), root) as WorkerConfig)
          : found;
    }

    if (chosen) {
      heading('Starting a Switchyard worker');
      const environment = chosen.usesFake ? { ...process.env, ...FAKE_PROVIDER_KEYS } : process.env;
      stack = await startWorkerAndClient(server.address, chosen.config, environment);
    }
    let gatewayKey: string | undefined;
    if (stack && chosen && !values['no-gateway']) {
      heading('Starting the gateway (switchyard serve)');
      const gatewayPort = port('gateway-port', values['gateway-port'], 4000);
      await ensureFree(gatewayPort, '--gateway-port');
      const keys = new KeyStore({ file: path.join(root, '.temporal', 'gateway-keys.json') });
      gatewayKey = devGatewayKey(keys, path.join(root, '.temporal', 'gateway-dev-key'));
      gateway = await startGateway({
        switchyard: stack.switchyard,
        config: chosen.config,
        keys,
        port: gatewayPort,
      });
    }

    heading('Running — Ctrl-C stops everything');
    say(`  Temporal          ${server.address}   (export TEMPORAL_ADDRESS=${server.address})`);
    say(`  Web UI            ${server.uiUrl}`);
    if (codecServer)
      say(`  codec server      ${codecServer.url}   (the Web UI decodes encrypted and stored payloads here)`);
    if (fake)
      say(
        `  fake provider     ${fake.url}   (OpenAI base URL ${fake.openaiBaseURL}, Anthropic ${fake.anthropicBaseURL})`,
      );
    if (stack && chosen) {
      say(
        `  worker            task queues "${stack.worker.taskQueue}" and "${stack.worker.entityTaskQueue}"`,
      );
      say(`  config            ${chosen.source}`);
      if (runtime.metricsUrl) say(`  metrics           ${runtime.metricsUrl}`);
      if (gateway && gatewayKey) {
        say(
          `  gateway           ${gateway.url}   (OpenAI base URL ${gateway.url}/v1, Anthropic ${gateway.url})`,
        );
        say(`  gateway key       ${gatewayKey}   (every route; kept in .temporal/gateway-dev-key)`);
      }
      say('\n  Try it from another terminal:');
      say(
        `    TEMPORAL_ADDRESS=${server.address} SWITCHYARD_CONFIG=${chosen.file} npx switchyard call "Hello"`,
      );
      if (gateway && gatewayKey)
        say(
          `    curl ${gateway.url}/v1/chat/completions -H "Authorization: Bearer ${gatewayKey}" ` +
            `-H 'content-type: application/json' -d '{"messages":[{"role":"user","content":"Hello"}]}'`,
        );
    } else {
      say(`  worker            none (--no-worker): TEMPORAL_ADDRESS=${server.address} npx switchyard worker`);
    }
    // The worker's runtime turns Ctrl-C (SIGINT) and SIGTERM into a graceful shutdown; then run() returns.
    if (stack) await stack.worker.run();
    else
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    say('\n  stopping …');
  } finally {
    process.once('SIGINT', () => process.exit(130));
    await stop();
  }
  say('  stopped.');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
