// The fake provider's node:http server: routing, body reading, scenario choice, timers and clean shutdown.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { anthropicWire } from './anthropic-wire';
import type { FakeErrorContext } from './error-catalog';
import { openAIWire } from './openai-wire';
import type { ProviderWire } from './provider-wire';
import { respond } from './responder';
import { responsesWire } from './responses-wire';
import { FakeScenarioSchema, type FakeScenario } from './scenario';
import type { ResolvedScenario, ScenarioBook } from './scenario-book';
import { apiKeyOf, fingerprintApiKey, redactHeaders, type TrafficLog } from './traffic-log';

/** Request header carrying one scenario as JSON; it overrides every script for that request. */
export const SCENARIO_HEADER = 'x-fake-scenario';

const ROUTES: Readonly<Record<string, ProviderWire>> = {
  '/v1/chat/completions': openAIWire,
  '/v1/messages': anthropicWire,
  '/v1/responses': responsesWire,
};

export interface FakeServerSettings {
  readonly host: string;
  readonly port: number;
  readonly latencyMs: number;
  readonly requiredApiKey: string | undefined;
}

export class FakeHttpServer {
  private readonly server: Server;
  /** Wake-ups of every pending wait, so close() can end them at once. */
  private readonly pendingWaits = new Set<() => void>();
  private sequence = 0;
  private closing = false;

  constructor(
    private readonly settings: FakeServerSettings,
    private readonly book: ScenarioBook,
    private readonly log: TrafficLog,
  ) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        // A bug in the fake must not look like a provider answer: fail loudly and drop the connection.
        process.emitWarning(`fake provider failed to answer: ${String(error)}`);
        response.socket?.destroy();
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.settings.port, this.settings.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** Stops listening, ends pending waits and destroys open sockets (hung requests included). */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of [...this.pendingWaits]) wake();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private wait(ms: number, response: ServerResponse): Promise<boolean> {
    if (this.closing || response.socket === null || response.socket.destroyed) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (elapsed: boolean) => {
        clearTimeout(timer);
        this.pendingWaits.delete(wake);
        response.off('close', wake);
        resolve(elapsed);
      };
      const wake = () => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      this.pendingWaits.add(wake);
      response.once('close', wake);
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const wire = request.method === 'POST' ? ROUTES[path] : undefined;
    const bodyText = await readBody(request);
    if (!wire) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no fake route for ${request.method} ${path}` } }));
      return;
    }
    this.sequence += 1;
    const sequence = this.sequence;
    const serial = String(sequence).padStart(6, '0');
    const apiKey = apiKeyOf(request.headers);
    const body = parseJson(bodyText);
    const parsed = wire.parseRequest(body);
    const model = typeof parsed === 'string' ? modelOf(body) : parsed.model;
    let errorContext: FakeErrorContext = {
      model: model ?? '',
      requestId: `req_fake_${serial}`,
      apiKeyTail: (apiKey ?? '').slice(-4),
    };
    const now = Date.now();
    const resolved =
      typeof parsed === 'string' ? undefined : this.resolveScenario(request, wire, parsed.model, now);
    const chosen = resolved && !('invalid' in resolved) ? resolved : undefined;
    // The key goes back only where the scenario asks; it is still never written to the traffic log.
    const echo = new Set(apiKey !== undefined ? (chosen?.scenario?.echoApiKey ?? []) : []);
    if (echo.size > 0) {
      errorContext = {
        ...errorContext,
        ...(echo.has('request_id') ? { requestId: apiKey! } : {}),
        echo: {
          ...(echo.has('code') ? { code: apiKey! } : {}),
          ...(echo.has('body') ? { text: apiKey! } : {}),
        },
      };
    }

    const tally = this.log.record({
      sequence,
      requestId: errorContext.requestId,
      provider: wire.provider,
      path,
      model,
      body,
      headers: redactHeaders(request.headers),
      apiKeyFingerprint: apiKey === undefined ? null : fingerprintApiKey(apiKey),
      scenario: chosen?.scenario?.kind ?? 'default',
      scenarioSource: chosen?.source ?? 'default',
      echoedApiKey: echo.size > 0,
      receivedAt: now,
    });

    // A request whose client hangs up before the answer is complete (an aborted call) is noted with the time.
    response.once('close', () => {
      if (!response.writableFinished) this.log.abandoned(sequence, Date.now());
    });
    const requestIdHeader = { [wire.requestIdHeader]: errorContext.requestId };
    const reject = (message: string) => {
      const error = wire.invalidRequestResponse(message, errorContext);
      response.writeHead(error.status, { 'content-type': 'application/json', ...requestIdHeader });
      response.end(JSON.stringify(error.body));
      tally.failed();
    };
    if (typeof parsed === 'string') return reject(parsed);
    if (resolved && 'invalid' in resolved) return reject(resolved.invalid);

    // A wrong key is answered like the provider would, whatever was scripted.
    const scenario: FakeScenario | undefined =
      this.settings.requiredApiKey !== undefined && apiKey !== this.settings.requiredApiKey
        ? { kind: 'error', error: 'authentication' }
        : chosen?.scenario;
    if (!(await this.wait(scenario?.delayMs ?? this.settings.latencyMs, response))) {
      tally.failed();
      return;
    }
    await respond(
      {
        wire,
        request: parsed,
        response,
        ids: {
          responseId: `${wire.responseIdPrefix}${serial}`,
          created: Math.floor(now / 1000),
        },
        errorContext,
        tally,
        wait: (ms) => this.wait(ms, response),
      },
      scenario,
    );
  }

  private resolveScenario(
    request: IncomingMessage,
    wire: ProviderWire,
    model: string,
    now: number,
  ): ResolvedScenario | { invalid: string } {
    const header = request.headers[SCENARIO_HEADER];
    if (typeof header !== 'string') return this.book.resolve(model, now, wire.provider);
    const result = FakeScenarioSchema.safeParse(parseJson(header));
    if (!result.success) return { invalid: `${SCENARIO_HEADER}: ${z.prettifyError(result.error)}` };
    return { scenario: result.data, source: 'header' };
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function modelOf(body: unknown): string | undefined {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model : undefined;
}
