// What the fake provider received and answered: request log, per-model counters and billed usage.
import { createHash } from 'node:crypto';
import type { FakeAnswerUsage } from './answer';
import type { FakeProviderKind } from './provider-wire';
import type { FakeScenarioKind } from './scenario';
import type { ScenarioSource } from './scenario-book';

/** Request headers that carry credentials; the log keeps only their presence. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'cookie', 'proxy-authorization']);
const REDACTED = '[redacted]';

export interface FakeRequestRecord {
  /** 1-based arrival order across all models. */
  readonly sequence: number;
  /** The request id the response carried (`x-request-id` / `request-id`), if one was sent. */
  readonly requestId: string;
  readonly provider: FakeProviderKind;
  readonly path: string;
  /** The `model` of the body, when the body had one. */
  readonly model: string | undefined;
  /** The parsed JSON body (undefined when it did not parse). */
  readonly body: unknown;
  /** Lower-cased request headers; credentials replaced by `[redacted]`. */
  readonly headers: Readonly<Record<string, string>>;
  /** {@link fingerprintApiKey} of the key sent (`x-api-key` or bearer token), or null if none. */
  readonly apiKeyFingerprint: string | null;
  readonly scenario: FakeScenarioKind | 'default';
  readonly scenarioSource: ScenarioSource;
  /** True when the response echoed the caller's key (a scenario's `echoApiKey`). */
  readonly echoedApiKey: boolean;
  /** Epoch milliseconds. */
  readonly receivedAt: number;
}

export interface FakeModelCounters {
  readonly requests: number;
  /** Complete 200 answers, refusals included. */
  readonly answered: number;
  /** Everything else: errors, hangs, resets, broken bodies and streams. */
  readonly failed: number;
}

/** Token usage the fake reported on complete answers: what a real provider would bill. */
export interface FakeBilledUsage {
  readonly answers: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

/** A short, non-reversible fingerprint of an API key, so tests can check which key arrived. */
export function fingerprintApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** The key a request carried: `x-api-key` (older Anthropic SDKs), else the `Authorization: Bearer` token. */
export function apiKeyOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization.startsWith('Bearer ')) return authorization.slice(7);
  return undefined;
}

export function redactHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const redacted: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    redacted[name] = SECRET_HEADERS.has(name) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return redacted;
}

const NO_COUNTS: FakeModelCounters = { requests: 0, answered: 0, failed: 0 };
const NO_USAGE: FakeBilledUsage = { answers: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/** How one request ended, reported by the responder; ignored if the log was reset meanwhile. */
export interface ExchangeTally {
  answered(): void;
  failed(): void;
  /** Adds reported usage to the model's billed tally. */
  bill(usage: FakeAnswerUsage): void;
}

export class TrafficLog {
  readonly requests: FakeRequestRecord[] = [];
  private readonly countersByModel = new Map<string, FakeModelCounters>();
  private readonly billedByModel = new Map<string, FakeBilledUsage>();
  /** When the client abandoned a request (by sequence) before its answer was complete, `Date.now()` ms. */
  private readonly abandonedAt = new Map<number, number>();
  /** Bumped by clear(), so requests still in flight from before a reset cannot count after it. */
  private epoch = 0;

  record(request: FakeRequestRecord): ExchangeTally {
    this.requests.push(request);
    this.bump(request.model, 'requests');
    const epoch = this.epoch;
    const current = () => epoch === this.epoch;
    return {
      answered: () => {
        if (current()) this.bump(request.model, 'answered');
      },
      failed: () => {
        if (current()) this.bump(request.model, 'failed');
      },
      bill: (usage) => {
        if (current() && request.model !== undefined) this.bill(request.model, usage);
      },
    };
  }

  /** Notes that the client closed request `sequence` before its answer was complete. */
  abandoned(sequence: number, at: number): void {
    this.abandonedAt.set(sequence, at);
  }

  /** When the client closed request `sequence` before its answer was complete; undefined if it never did. */
  abandonedAtOf(sequence: number): number | undefined {
    return this.abandonedAt.get(sequence);
  }

  counters(model: string): FakeModelCounters {
    return this.countersByModel.get(model) ?? NO_COUNTS;
  }

  billed(model: string): FakeBilledUsage {
    return this.billedByModel.get(model) ?? NO_USAGE;
  }

  clear(): void {
    this.epoch += 1;
    this.requests.length = 0;
    this.abandonedAt.clear();
    this.countersByModel.clear();
    this.billedByModel.clear();
  }

  private bill(model: string, usage: FakeAnswerUsage): void {
    const billed = this.billed(model);
    this.billedByModel.set(model, {
      answers: billed.answers + 1,
      inputTokens: billed.inputTokens + usage.inputTokens,
      cachedInputTokens: billed.cachedInputTokens + usage.cachedInputTokens,
      outputTokens: billed.outputTokens + usage.outputTokens,
    });
  }

  private bump(model: string | undefined, field: keyof FakeModelCounters): void {
    // Requests without a model (malformed bodies) are counted under the empty name.
    const key = model ?? '';
    const counters = this.counters(key);
    this.countersByModel.set(key, { ...counters, [field]: counters[field] + 1 });
  }
}
