// `switchyard serve`: the OpenAI- and Anthropic-compatible HTTP gateway, until SIGINT / SIGTERM. Node side.
import type { Command } from '../command';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import { ExitCode } from '../exit-codes';
import { nonEmptyFlag, positiveIntegerFlag } from '../flag-values';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { untilInterrupted } from '../until-interrupted';

export const KEYS_FLAG = {
  keys: {
    type: 'string',
    valueName: '<path>',
    description: 'gateway key file (default: SWITCHYARD_GATEWAY_KEYS, else ./switchyard.keys.json)',
  },
} as const satisfies FlagTable;

const SERVER_FLAGS = {
  port: { type: 'string', valueName: '<port>', description: 'TCP port to listen on (default: 4000)' },
  host: {
    type: 'string',
    valueName: '<ip>',
    description: 'address to bind (default: 127.0.0.1; 0.0.0.0 needs --relay-url)',
  },
  'relay-url': {
    type: 'string',
    valueName: '<url>',
    description:
      "this gateway's URL as the workers reach it, for streamed output and answers (default: the relay listener's http://<host>:<port>)",
  },
  'relay-port': {
    type: 'string',
    valueName: '<port>',
    description: 'serve the relay for workers on a listener of its own, e.g. on the internal network only',
  },
  'relay-host': {
    type: 'string',
    valueName: '<ip>',
    description: "address of the relay's own listener, with --relay-port (default: --host)",
  },
  'body-limit-bytes': {
    type: 'string',
    valueName: '<n>',
    description:
      'largest request body accepted (default: 33554432 with SWITCHYARD_PAYLOAD_STORE_DIR set, else the Temporal payload limit, 2097152)',
  },
  'max-connections': {
    type: 'string',
    valueName: '<n>',
    description: 'most TCP connections each listener keeps open; more are closed (default: 1024)',
  },
  'max-concurrent-per-key': {
    type: 'string',
    valueName: '<n>',
    description:
      'most requests one gateway key may have in flight; more get 429 with retry-after (default: 32)',
  },
  'max-concurrent': {
    type: 'string',
    valueName: '<n>',
    description:
      'most requests the gateway has in flight, all keys together; more get 503 overloaded with retry-after (default: 1024)',
  },
  'call-timeout-ms': {
    type: 'string',
    valueName: '<ms>',
    description: "one request's time: the routed call's deadline (default: 300000)",
  },
  'answer-after-record': {
    type: 'boolean',
    description:
      'answer each request once its call has ended, not as soon as its attempt has the answer (for workers older than this gateway)',
  },
  ...KEYS_FLAG,
} as const satisfies FlagTable;

const FLAGS = { ...SERVER_FLAGS, ...GLOBAL_FLAGS } satisfies FlagTable;

const HELP = renderHelp({
  usage: ['switchyard serve [options]'],
  description: [
    'Serves an OpenAI-compatible POST /v1/chat/completions, an Anthropic-compatible POST /v1/messages and',
    'GET /v1/models, so any SDK can make routed calls by changing its base URL. "model" names a route (absent:',
    'the default route). Every request is a routed-call workflow; streams fail over only before the first',
    'output reaches the caller. Clients authenticate with keys from "switchyard keys create"; provider keys',
    'stay with the workers. Runs until SIGINT or SIGTERM.',
  ],
  sections: [
    { title: 'Server', flags: SERVER_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard serve --config ./switchyard.config.json',
    'switchyard serve --host 0.0.0.0 --port 4000 --relay-url http://gateway-1.internal:4000',
    'switchyard serve --host 0.0.0.0 --relay-host 10.0.0.5 --relay-port 4001',
    'OPENAI_BASE_URL=http://127.0.0.1:4000/v1 OPENAI_API_KEY=sy_… python app.py',
  ],
  notes: [EXIT_CODES_NOTE],
});

function readPort(value: string | undefined, flag = 'port'): number | undefined {
  if (value === '0') return 0;
  const port = positiveIntegerFlag(flag, value);
  if (port !== undefined && port > 65_535)
    throw new UsageError(`--${flag} must be at most 65535, got ${port}`);
  return port;
}

function readRelayUrl(value: string | undefined): string | undefined {
  if (nonEmptyFlag('relay-url', value) === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value!);
  } catch {
    throw new UsageError(`--relay-url "${value}" is not a URL like http://gateway-1.internal:4000`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password || parsed.search) {
    throw new UsageError('--relay-url must be http(s)://host[:port][/path], without credentials or query');
  }
  return value!.replace(/\/$/, '');
}

export const serveCommand: Command = {
  name: 'serve',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: false });
    const globals = readGlobalOptions(parsed);
    const port = readPort(stringFlag(parsed, 'port'));
    const host = nonEmptyFlag('host', stringFlag(parsed, 'host')) ?? '127.0.0.1';
    const relayUrl = readRelayUrl(stringFlag(parsed, 'relay-url'));
    const relayPort = readPort(stringFlag(parsed, 'relay-port'), 'relay-port');
    const relayHost = nonEmptyFlag('relay-host', stringFlag(parsed, 'relay-host'));
    if (relayHost !== undefined && relayPort === undefined) {
      throw new UsageError(
        '--relay-host needs --relay-port: the relay gets a listener of its own only with a port',
      );
    }
    // The address the workers would be given: the relay's own listener's, else the client listener's.
    const relayBindHost = relayPort !== undefined ? (relayHost ?? host) : host;
    if (relayUrl === undefined && ['0.0.0.0', '::', '[::]'].includes(relayBindHost)) {
      throw new UsageError(
        `--${relayPort !== undefined && relayHost !== undefined ? 'relay-host' : 'host'} ${relayBindHost} needs --relay-url: the workers must know which address reaches this gateway`,
      );
    }
    const bodyLimitBytes = positiveIntegerFlag('body-limit-bytes', stringFlag(parsed, 'body-limit-bytes'));
    const maxConnections = positiveIntegerFlag('max-connections', stringFlag(parsed, 'max-connections'));
    const maxConcurrentRequestsPerKey = positiveIntegerFlag(
      'max-concurrent-per-key',
      stringFlag(parsed, 'max-concurrent-per-key'),
    );
    const maxConcurrentRequests = positiveIntegerFlag('max-concurrent', stringFlag(parsed, 'max-concurrent'));
    const callTimeoutMs = positiveIntegerFlag('call-timeout-ms', stringFlag(parsed, 'call-timeout-ms'));
    const keysFile = nonEmptyFlag('keys', stringFlag(parsed, 'keys'));

    // Loaded after the arguments are checked, as in the other commands.
    const { loadConfig } = require('../../config/load-config') as typeof import('../../config/load-config');
    const { KeyStore } = require('../../gateway/key-store') as typeof import('../../gateway/key-store');
    const { startGateway } =
      require('../../gateway/gateway-server') as typeof import('../../gateway/gateway-server');
    const { SwitchyardClient } =
      require('../../client/switchyard-client') as typeof import('../../client/switchyard-client');
    const { connectSwitchyard } = require('../connect-temporal') as typeof import('../connect-temporal');
    const config = loadConfig(globals.configFile);
    const { checkKeysAgainstPolicy, keyPolicyFromEnvironment, KeyPolicyError } =
      require('../../gateway/key-policy') as typeof import('../../gateway/key-policy');
    const keys = new KeyStore(keysFile !== undefined ? { file: keysFile } : {});
    let keyPolicy;
    try {
      keyPolicy = keyPolicyFromEnvironment();
      // Checked at start for every key at once; each request is checked again, so a later edit cannot slip by.
      checkKeysAgainstPolicy(keys.list(), keyPolicy);
    } catch (error) {
      if (error instanceof KeyPolicyError) throw new UsageError(error.message);
      throw error;
    }
    const active = keys.list().filter((key) => key.revokedAt === undefined).length;

    // Before connecting: the client's interceptor and the request spans use the provider installed here (none
    // unless OTEL_TRACES_EXPORTER or an OTLP endpoint is set). OTEL_SERVICE_NAME overrides the name.
    const { installTracing } =
      require('../../tracing/install-tracing') as typeof import('../../tracing/install-tracing');
    const { TracingSettingsError } =
      require('../../tracing/tracing-settings') as typeof import('../../tracing/tracing-settings');
    let tracing;
    try {
      tracing = installTracing({ serviceName: 'switchyard-gateway' });
    } catch (error) {
      if (error instanceof TracingSettingsError) throw new UsageError(error.message);
      throw error;
    }
    let connection;
    try {
      connection = await connectSwitchyard(globals);
    } catch (error) {
      await tracing?.shutdown();
      throw error;
    }
    let gateway;
    try {
      gateway = await startGateway({
        switchyard: new SwitchyardClient({
          client: connection.temporal,
          config,
          ...(globals.taskQueue ? { taskQueue: globals.taskQueue } : {}),
        }),
        config,
        keys,
        keyPolicy,
        host,
        ...(port !== undefined ? { port } : {}),
        ...(relayUrl !== undefined ? { relayUrl } : {}),
        ...(relayPort !== undefined ? { relayPort } : {}),
        ...(relayHost !== undefined ? { relayHost } : {}),
        ...(bodyLimitBytes !== undefined ? { bodyLimitBytes } : {}),
        ...(maxConnections !== undefined ? { maxConnections } : {}),
        ...(maxConcurrentRequestsPerKey !== undefined ? { maxConcurrentRequestsPerKey } : {}),
        ...(maxConcurrentRequests !== undefined ? { maxConcurrentRequests } : {}),
        ...(callTimeoutMs !== undefined ? { callTimeoutMs } : {}),
        ...(booleanFlag(parsed, 'answer-after-record') ? { earlyAnswers: false } : {}),
        onRequestLog: (line) => io.stderr.write(`${new Date().toISOString()} ${line}\n`),
      });
    } catch (error) {
      await connection.close();
      await tracing?.shutdown();
      const code = (error as { code?: unknown }).code;
      // The error's own port and address tell which listener could not bind.
      const { port: failedPort, address } = error as { port?: number; address?: string };
      const relayFailed = relayPort !== undefined && failedPort === relayPort && failedPort !== port;
      if (code === 'EADDRINUSE')
        throw new UsageError(
          `port ${failedPort ?? port ?? 4000} is in use; choose another with --${relayFailed ? 'relay-port' : 'port'}`,
        );
      if (code === 'EADDRNOTAVAIL')
        throw new UsageError(
          `--${relayFailed ? 'relay-host' : 'host'} ${address ?? host} is not an address of this machine`,
        );
      if ((error as { name?: string }).name === 'TransportError') throw temporalUnreachable(globals, error);
      throw error;
    }
    io.stderr.write(
      [
        `switchyard gateway at ${gateway.url} (relay for workers: ${gateway.relayUrl})`,
        `  OpenAI:     base URL ${gateway.url}/v1   POST /v1/chat/completions`,
        `  Anthropic:  base URL ${gateway.url}      POST /v1/messages`,
        `  body limit: ${gateway.bodyLimitBytes} bytes; at most ${gateway.maxConcurrentRequestsPerKey} requests at once per key, ${gateway.maxConcurrentRequests} in all`,
        `  routes:     ${Object.keys(config.routes).join(', ')}${config.defaultRoute ? ` (default ${config.defaultRoute})` : ''}`,
        `  keys:       ${active} active in ${keys.file}${active === 0 ? ' — make one with "switchyard keys create --routes <route>"' : ''}`,
        '',
      ].join('\n'),
    );
    try {
      await untilInterrupted(new Promise<never>(() => undefined));
    } finally {
      await gateway.close();
      await connection.close();
      // Sends the spans still batched.
      await tracing?.shutdown();
    }
    return ExitCode.ok;
  },
};
