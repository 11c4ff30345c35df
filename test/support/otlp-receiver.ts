// An OTLP/HTTP trace receiver on 127.0.0.1 for tests: it takes what the real OTLP exporters send (JSON, as
// OTEL_EXPORTER_OTLP_PROTOCOL=http/json makes them) and keeps the spans as plain objects.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** One received span, its attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: Record<string, AttributeValue>;
  readonly events: readonly { readonly name: string; readonly attributes: Record<string, AttributeValue> }[];
  readonly status: { readonly code?: number; readonly message?: string };
  readonly serviceName: string | undefined;
  /** The attributes of the resource that exported it (`service.name`, `process.pid`, `host.name`, …). */
  readonly resource: Record<string, AttributeValue>;
  /** The span as it arrived, for scans. */
  readonly raw: string;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds `/v1/traces`). */
  readonly endpoint: string;
  spans(): readonly ReceivedSpan[];
  /** Every request body received, as text, for scans. */
  bodies(): readonly string[];
  close(): Promise<void>;
}

interface OtlpKeyValue {
  readonly key: string;
  readonly value: OtlpAnyValue;
}
interface OtlpAnyValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly doubleValue?: number;
  readonly boolValue?: boolean;
  readonly arrayValue?: { readonly values?: readonly OtlpAnyValue[] };
}

function plain(value: OtlpAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributesOf(list: readonly OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

/** OTLP/JSON carries ids as hex, but some encoders send base64: both come out as hex. */
function hexId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      if (request.url !== '/v1/traces' || !(request.headers['content-type'] ?? '').includes('json')) {
        response.writeHead(415).end();
        return;
      }
      const payload = JSON.parse(body) as {
        resourceSpans?: {
          resource?: { attributes?: OtlpKeyValue[] };
          scopeSpans?: { spans?: Record<string, unknown>[] }[];
        }[];
      };
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        const serviceName = resource['service.name'];
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            received.push({
              traceId: hexId(span.traceId as string) ?? '',
              spanId: hexId(span.spanId as string) ?? '',
              parentSpanId: hexId(span.parentSpanId as string | undefined),
              name: span.name as string,
              kind: span.kind as number,
              startTimeUnixNano: String(span.startTimeUnixNano),
              endTimeUnixNano: String(span.endTimeUnixNano),
              attributes: attributesOf(span.attributes as OtlpKeyValue[]),
              events: (
                (span.events as { name: string; attributes?: OtlpKeyValue[] }[] | undefined) ?? []
              ).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
              status: (span.status as { code?: number; message?: string } | undefined) ?? {},
              serviceName: typeof serviceName === 'string' ? serviceName : undefined,
              resource,
              raw: JSON.stringify(span),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    bodies: () => [...bodies],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
