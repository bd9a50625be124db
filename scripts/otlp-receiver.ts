/** An OTLP/HTTP (JSON) trace receiver on 127.0.0.1: what `--otel` exports to, in tests and in scripts/trace-tree.ts. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/JSON carries it (the fields read here). */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events?: Array<{ name: string }>;
  /** 2 is ERROR. */
  status?: { code?: number };
  /** Ours: the exporting process's `service.name`. */
  service?: string;
  /** Ours: the exporting process's `service.instance.id`. */
  serviceInstance?: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ExportedSpan[];
  close(): Promise<void>;
}

const MAX_RECEIVED_BYTES = 64 * 1024 * 1024;

/** Keeps every span posted to /v1/traces (at most 64 MB in all), answering every post with 200. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ExportedSpan[] = [];
  let received = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received < MAX_RECEIVED_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (request.url === '/v1/traces' && received < MAX_RECEIVED_BYTES) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ resource?: { attributes?: ExportedSpan['attributes'] }; scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
        };
        for (const resource of body.resourceSpans) {
          const named = (key: string) => {
            const value = resource.resource?.attributes?.find((entry) => entry.key === key)?.value.stringValue;
            return typeof value === 'string' ? value : undefined;
          };
          const service = named('service.name');
          const serviceInstance = named('service.instance.id');
          for (const scope of resource.scopeSpans) spans.push(...scope.spans.map((span) => ({ ...span, service, serviceInstance })));
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
