// The remote codec server: POST /encode and /decode for the Temporal Web UI and CLI, with CORS and bearer auth. Node side.
import { SwitchyardError } from '../config/branded-error';
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { JsonPayloadsSchema, payloadFromJson, payloadToJson } from './payload-json';

/** Environment variables the codec server reads. */
export const CODEC_SERVER_VARIABLES = {
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token: 'SWITCHYARD_CODEC_SERVER_TOKEN',
} as const;

/** Origins of the dev server's Web UI (`temporal server start-dev`: port 8233), as a browser may write them. */
export const DEFAULT_CODEC_ORIGINS: readonly string[] = ['http://localhost:8233', 'http://127.0.0.1:8233'];
export const DEFAULT_CODEC_SERVER_PORT = 8888;

/** Request headers the Web UI sends (and the CLI's `--codec-auth` one), allowed by the CORS preflight. */
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization';
/** Temporal caps one payload at 2 MiB by default; a history page may carry many. In bytes. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface CodecServerOptions {
  /** The codec that encodes and decodes, e.g. `new AesGcmCodec(keyring)`. */
  readonly codec: PayloadCodec;
  /** TCP port; 0 picks a free one. @default 8888 */
  readonly port?: number;
  /**
   * Address to bind. Anything but a loopback address needs a {@link bearerToken}, or
   * {@link allowUnauthenticated} when something in front authenticates.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * Serve a non-loopback {@link host} without a bearer token: only behind a proxy that authenticates every
   * request, since anyone who reaches the server can have it decrypt history. Never allows `'*'` origins.
   * @default false
   */
  readonly allowUnauthenticated?: boolean;
  /**
   * Browser origins allowed to call the server (the Web UI's, exactly as the address bar shows it), or `['*']`,
   * which needs a {@link bearerToken}: without one any web page a user opens could use it to decrypt.
   * Requests without an `Origin` header (the CLI, curl) are not browser requests and are always allowed.
   * @default {@link DEFAULT_CODEC_ORIGINS}, the dev server's Web UI
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * A token every request must present as `Authorization: Bearer <token>`; undefined or empty for none.
   * @default `SWITCHYARD_CODEC_SERVER_TOKEN`, else none
   */
  readonly bearerToken?: string;
  /** Told about every request that failed, for a log line; never given payload contents. @default ignore */
  readonly onError?: (error: CodecRequestError) => void;
}

export interface CodecServer {
  /** Base URL to give the Web UI (`--ui-codec-endpoint`) or the CLI (`--codec-endpoint`), e.g. `http://127.0.0.1:8888`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A request the server refused or could not serve: its HTTP status and a message safe to show. */
export class CodecRequestError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.CodecRequestError';

  override readonly name = 'CodecRequestError';
  constructor(
    readonly status: number,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

/** The server would be open to more than the local machine's Web UI: why it was refused. */
export class UnsafeCodecServerError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.UnsafeCodecServerError';

  override readonly name = 'UnsafeCodecServerError';
  constructor(
    readonly problem: CodecServerExposure,
    message: string,
  ) {
    super(message);
  }
}

/** `wildcard-origin`: `'*'` allowed without a token; `public-host`: a non-loopback address without a token. */
export type CodecServerExposure = 'wildcard-origin' | 'public-host';

/** `localhost`, 127.0.0.0/8, `::1` (and its IPv4-mapped form): reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const ipv4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  if (isIP(ipv4) === 4) return ipv4.startsWith('127.');
  // The URL parser writes an IPv6 address in its shortest form, so `0:0:0:0:0:0:0:1` is recognised too.
  return isIP(bare) === 6 && new URL(`http://[${bare}]`).hostname === '[::1]';
}

/**
 * What makes these settings unsafe, if anything. With no token, a `'*'` origin would let every page a user
 * visits decrypt through the server (its answers carry `Access-Control-Allow-Credentials`), and a non-loopback
 * address would let anyone on the network do so; `allowUnauthenticated` accepts the second only.
 */
export function codecServerExposure(settings: {
  readonly host: string;
  readonly allowedOrigins: readonly string[];
  readonly bearerToken: string | undefined;
  readonly allowUnauthenticated?: boolean;
}): CodecServerExposure | undefined {
  if (settings.bearerToken) return undefined;
  if (settings.allowedOrigins.includes('*')) return 'wildcard-origin';
  if (!isLoopbackHost(settings.host) && !settings.allowUnauthenticated) return 'public-host';
  return undefined;
}

type CodecOperation = 'encode' | 'decode';

/** The protocol says to look only at the last path segment, so `/<namespace>/decode` works too. */
function operationOf(url: string | undefined): CodecOperation | undefined {
  const path = new URL(url ?? '/', 'http://codec.invalid').pathname.replace(/\/+$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last === 'encode' || last === 'decode' ? last : undefined;
}

function sameToken(presented: string, expected: string): boolean {
  const left = Buffer.from(presented);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new CodecRequestError(413, `body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parsePayloads(body: string) {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new CodecRequestError(400, 'body is not JSON; expected {"payloads": [...]}');
  }
  const parsed = JsonPayloadsSchema.safeParse(json);
  if (!parsed.success)
    throw new CodecRequestError(400, `body is not a Payloads message:\n${z.prettifyError(parsed.error)}`);
  return parsed.data.payloads.map(payloadFromJson);
}

export class CodecHttpServer {
  private readonly server: Server;
  private readonly allowedOrigins: readonly string[];
  private readonly bearerToken: string | undefined;
  private readonly host: string;

  /** @throws UnsafeCodecServerError for settings that would open decryption beyond the local Web UI. */
  constructor(private readonly options: CodecServerOptions) {
    this.allowedOrigins = options.allowedOrigins ?? DEFAULT_CODEC_ORIGINS;
    const token = options.bearerToken ?? process.env[CODEC_SERVER_VARIABLES.token];
    this.bearerToken = token ? token : undefined;
    this.host = options.host ?? '127.0.0.1';
    const exposure = codecServerExposure({
      host: this.host,
      allowedOrigins: this.allowedOrigins,
      bearerToken: this.bearerToken,
      allowUnauthenticated: options.allowUnauthenticated ?? false,
    });
    if (exposure === 'wildcard-origin')
      throw new UnsafeCodecServerError(
        exposure,
        `allowed origin "*" needs a bearer token (${CODEC_SERVER_VARIABLES.token}): without one any web page ` +
          'could have this server decrypt history; name the Web UI origins instead',
      );
    if (exposure === 'public-host')
      throw new UnsafeCodecServerError(
        exposure,
        `host ${this.host} is not a loopback address and no bearer token is set (${CODEC_SERVER_VARIABLES.token}): ` +
          'anyone who can reach it could decrypt history; set a token, or allow unauthenticated use only ' +
          'behind a proxy that authenticates',
      );
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => this.fail(response, error, request.url));
    });
  }

  async listen(): Promise<CodecServer> {
    const host = this.host;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? DEFAULT_CODEC_SERVER_PORT, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.server.address() as AddressInfo;
    const urlHost = host.includes(':') ? `[${host}]` : host;
    return {
      url: `http://${urlHost}:${port}`,
      port,
      close: () =>
        new Promise<void>((resolve, reject) => {
          this.server.close((error) => (error ? reject(error) : resolve()));
          this.server.closeAllConnections();
        }),
    };
  }

  private originAllowed(origin: string): boolean {
    return this.allowedOrigins.includes('*') || this.allowedOrigins.includes(origin);
  }

  /** CORS response headers for an allowed browser origin; none for a request that sent no Origin. */
  private corsHeaders(origin: string | undefined): Record<string, string> {
    if (origin === undefined) return {};
    return {
      'access-control-allow-origin': origin,
      // The UI may send cookies (its "include cross-origin credentials" setting); allowed only with an exact origin.
      'access-control-allow-credentials': 'true',
      vary: 'Origin',
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    // A page on any other origin must not use this server to decrypt: refuse it before doing anything.
    if (origin !== undefined && !this.originAllowed(origin))
      throw new CodecRequestError(403, `origin ${origin} is not allowed (see --origin)`, request.url);
    const operation = operationOf(request.url);
    if (request.method === 'OPTIONS') {
      // The preflight carries no credentials, so it is answered before the token check.
      response.writeHead(204, {
        ...this.corsHeaders(origin),
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    if (!operation) throw new CodecRequestError(404, 'not found: POST /encode or /decode', request.url);
    if (request.method !== 'POST')
      throw new CodecRequestError(405, `${request.method} is not allowed: POST /${operation}`, request.url);
    if (this.bearerToken !== undefined) {
      const presented = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
      if (presented === undefined || !sameToken(presented, this.bearerToken))
        throw new CodecRequestError(401, 'missing or wrong bearer token', request.url);
    }
    const payloads = parsePayloads(await readBody(request));
    let converted;
    try {
      converted =
        operation === 'encode'
          ? await this.options.codec.encode(payloads)
          : await this.options.codec.decode(payloads);
    } catch (error) {
      // The codec's errors name key ids and reasons, never key material or payload contents.
      throw new CodecRequestError(400, error instanceof Error ? error.message : String(error), request.url);
    }
    const body = JSON.stringify({ payloads: converted.map(payloadToJson) });
    response.writeHead(200, { ...this.corsHeaders(origin), 'content-type': 'application/json' });
    response.end(body);
  }

  private fail(response: ServerResponse, error: unknown, path: string | undefined): void {
    const failure =
      error instanceof CodecRequestError
        ? error
        : new CodecRequestError(
            500,
            `internal error: ${error instanceof Error ? error.name : 'unknown'}`,
            path,
          );
    this.options.onError?.(failure);
    if (response.headersSent) {
      response.socket?.destroy();
      return;
    }
    // An allowed browser still gets CORS headers on an error, so the UI can read why.
    const origin = response.req.headers.origin;
    const cors = origin !== undefined && this.originAllowed(origin) ? this.corsHeaders(origin) : {};
    response.writeHead(failure.status, { ...cors, 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: failure.message }));
  }
}

/** Starts a codec server and resolves once it listens; rejects with {@link UnsafeCodecServerError} as the constructor throws. */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  return new CodecHttpServer(options).listen();
}
