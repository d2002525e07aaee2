import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with its resource's attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean> }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  startNs: bigint;
  endNs: bigint;
  resource: Record<string, string | number | boolean>;
}

export const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

function attributes(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? '')),
    ]),
  );
}

/**
 * A tiny OTLP/HTTP collector in the test process (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): it
 * keeps every span exported to POST /v1/traces and answers as a collector does.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !String(req.headers['content-type']).startsWith('application/json')
      ) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: any[] }[] }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const resource = attributes(resourceSpans.resource.attributes);
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: attributes(span.attributes),
              links: (span.links ?? []).map(
                (link: { traceId: string; spanId: string; attributes?: OtlpAttribute[] }) => ({
                  traceId: link.traceId,
                  spanId: link.spanId,
                  attributes: attributes(link.attributes),
                }),
              ),
              status: span.status?.code ?? 0,
              startNs: BigInt(span.startTimeUnixNano),
              endNs: BigInt(span.endTimeUnixNano),
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    /** The spans of one trace. */
    trace: (traceId: string) => spans.filter((span) => span.traceId === traceId),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
