// `switchyard codec-server`: serves the payload codec to the Temporal Web UI and CLI until SIGINT / SIGTERM. Node side.
import type { Command } from '../command';
import { UsageError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import type { FlagTable } from '../flags';
import { HELP_FLAG } from '../flags';
import { nonEmptyFlag, positiveIntegerFlag } from '../flag-values';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { untilInterrupted } from '../until-interrupted';

const SERVER_FLAGS = {
  port: {
    type: 'string',
    valueName: '<port>',
    description: 'TCP port to listen on (default: 8888)',
  },
  host: {
    type: 'string',
    valueName: '<ip>',
    description:
      'address to bind (default: 127.0.0.1); any other than loopback needs SWITCHYARD_CODEC_SERVER_TOKEN',
  },
  origin: {
    type: 'string',
    valueName: '<url>[,<url>…]',
    description:
      'Web UI origins allowed to call it, or "*" (needs SWITCHYARD_CODEC_SERVER_TOKEN) (default: http://localhost:8233 and http://127.0.0.1:8233)',
  },
  'allow-unauthenticated': {
    type: 'boolean',
    description:
      'serve a non-loopback --host without SWITCHYARD_CODEC_SERVER_TOKEN: only behind a proxy that authenticates',
  },
} as const satisfies FlagTable;

const FLAGS = { ...SERVER_FLAGS, ...HELP_FLAG } satisfies FlagTable;

const HELP = renderHelp({
  usage: ['switchyard codec-server [options]'],
  description: [
    'Serves the payload codec over HTTP (POST /encode and /decode, the Temporal remote codec protocol), so',
    'the Temporal Web UI and CLI can show prompts and answers that workers encrypt in history or keep in the',
    'payload store. It reads the same settings as the workers: SWITCHYARD_CODEC_KEY (base64 of 32 bytes),',
    'SWITCHYARD_CODEC_KEY_ID and SWITCHYARD_CODEC_OLD_KEYS (id:base64,… accepted for decoding), and',
    'SWITCHYARD_PAYLOAD_STORE_DIR (references in history are read back from it; /encode never writes to it).',
    'Runs until SIGINT or SIGTERM.',
  ],
  sections: [
    { title: 'Server', flags: SERVER_FLAGS },
    { title: 'Other', flags: HELP_FLAG },
  ],
  examples: [
    'switchyard codec-server',
    'temporal server start-dev --ui-codec-endpoint http://127.0.0.1:8888',
    'temporal workflow show -w switchyard-call-job-42 --codec-endpoint http://127.0.0.1:8888',
    'switchyard codec-server --port 9090 --origin https://temporal-ui.example.com',
    'SWITCHYARD_CODEC_SERVER_TOKEN=<token> switchyard codec-server --host 0.0.0.0',
  ],
  notes: [
    'Or set the endpoint in the Web UI itself (its "Codec Server" settings, kept by the browser).\n' +
      'SWITCHYARD_CODEC_SERVER_TOKEN=<token> makes every request present "Authorization: Bearer <token>"\n' +
      '(for the CLI: temporal ... --codec-auth "Bearer <token>").',
    EXIT_CODES_NOTE,
  ],
});

function readPort(value: string | undefined): number | undefined {
  const port = positiveIntegerFlag('port', value);
  if (port !== undefined && port > 65_535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  return port;
}

function readOrigins(value: string | undefined): string[] | undefined {
  if (nonEmptyFlag('origin', value) === undefined) return undefined;
  const origins = value!
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new UsageError(`--origin "${origin}" is not a URL like http://localhost:8233`);
    }
    // Browsers send the origin as scheme://host[:port] with no path: anything else would never match.
    if (parsed.origin !== origin)
      throw new UsageError(`--origin "${origin}" must be scheme://host[:port] only, e.g. ${parsed.origin}`);
  }
  return origins;
}

export const codecServerCommand: Command = {
  name: 'codec-server',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: false });
    const port = readPort(stringFlag(parsed, 'port'));
    const host = nonEmptyFlag('host', stringFlag(parsed, 'host'));
    const allowedOrigins = readOrigins(stringFlag(parsed, 'origin'));
    const allowUnauthenticated = booleanFlag(parsed, 'allow-unauthenticated');

    // Loaded after the arguments are checked, as in the other commands.
    const { CodecSettingsError } =
      require('../../codec/codec-settings-error') as typeof import('../../codec/codec-settings-error');
    const { readCodecKeyring, CODEC_KEY_VARIABLES } =
      require('../../codec/codec-key') as typeof import('../../codec/codec-key');
    const { payloadLimitFromEnvironment } =
      require('../../codec/payload-limits') as typeof import('../../codec/payload-limits');
    const { payloadStoreFromEnvironment, PAYLOAD_STORE_VARIABLES } =
      require('../../codec/payload-store-settings') as typeof import('../../codec/payload-store-settings');
    const { CodecServerCodec } =
      require('../../codec/codec-server-codec') as typeof import('../../codec/codec-server-codec');
    const { startCodecServer, UnsafeCodecServerError } =
      require('../../codec/codec-server') as typeof import('../../codec/codec-server');
    let keyring;
    let payloadStore;
    let limitBytes;
    try {
      keyring = readCodecKeyring();
      limitBytes = payloadLimitFromEnvironment();
      payloadStore = payloadStoreFromEnvironment(limitBytes);
    } catch (error) {
      if (error instanceof CodecSettingsError) throw new UsageError(error.message);
      throw error;
    }
    if (!keyring && !payloadStore)
      throw new UsageError(
        `neither ${CODEC_KEY_VARIABLES.key} nor ${PAYLOAD_STORE_VARIABLES.directory} is set: give the codec server ` +
          'the key the workers encrypt with, the payload store they use, or both',
      );
    // The same codecs as the workers' for decoding, so the UI sees what they wrote: references read back, then
    // decrypted. Encoding never writes a caller's bytes into the shared store.
    const codec = new CodecServerCodec({
      limitBytes,
      ...(keyring ? { keyring } : {}),
      ...(payloadStore ? { payloadStore } : {}),
    });

    let server;
    try {
      server = await startCodecServer({
        codec,
        ...(port !== undefined ? { port } : {}),
        ...(host !== undefined ? { host } : {}),
        ...(allowedOrigins ? { allowedOrigins } : {}),
        allowUnauthenticated,
        onError: (error) =>
          io.stderr.write(`codec-server: ${error.status} ${error.path ?? ''}: ${error.message}\n`),
      });
    } catch (error) {
      if (error instanceof UnsafeCodecServerError)
        throw new UsageError(
          error.problem === 'wildcard-origin'
            ? `--origin "*" needs SWITCHYARD_CODEC_SERVER_TOKEN: without a token any web page could have this server decrypt history; name the Web UI origins instead`
            : `--host ${host} is not a loopback address and SWITCHYARD_CODEC_SERVER_TOKEN is not set: anyone who can reach it could decrypt history; set the token, or pass --allow-unauthenticated only behind a proxy that authenticates`,
        );
      const code = (error as { code?: unknown }).code;
      if (code === 'EADDRINUSE')
        throw new UsageError(`port ${port ?? 8888} is in use; choose another with --port`);
      if (code === 'EADDRNOTAVAIL') throw new UsageError(`--host ${host} is not an address of this machine`);
      throw error;
    }
    const encryption = keyring
      ? `encrypting with key id "${keyring.current.id}", decoding ${keyring.decodeKeys.size} ${keyring.decodeKeys.size === 1 ? 'key' : 'keys'}`
      : 'no encryption key';
    const store = payloadStore ? `payload store ${payloadStore.store.description}` : 'no payload store';
    io.stderr.write(
      [
        `switchyard codec server at ${server.url} (${encryption}; ${store})`,
        `  Web UI:  temporal server start-dev --ui-codec-endpoint ${server.url}`,
        `  CLI:     temporal workflow show -w <workflow-id> --codec-endpoint ${server.url}`,
        '',
      ].join('\n'),
    );
    try {
      await untilInterrupted(new Promise<never>(() => undefined));
    } finally {
      await server.close();
    }
    return ExitCode.ok;
  },
};
