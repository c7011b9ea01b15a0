import type { TracingConfig } from "@tollgate/gateway/tracing/call-trace";
import { startFakeServer } from "./fake-upstream-kit";
import { waitFor } from "./gateway-fixture";

/** An OTLP attribute value as OTLP/JSON encodes it. */
interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}

interface OtlpTraceRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** A span as the receiver decoded it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** 2: error. */
  statusCode: number;
  resource: Record<string, unknown>;
}

function plain(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

export interface FakeOtlpReceiver {
  /** The OTLP/HTTP traces URL: http://127.0.0.1:PORT/v1/traces. */
  tracesUrl: string;
  spans: ReceivedSpan[];
  /** The export requests' headers, in order (lower-cased names). */
  headers: Record<string, string>[];
  /** Resolves with the spans once `holds` is true of them. */
  waitForSpans(holds: (spans: ReceivedSpan[]) => boolean, what: string): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

/** A collector stand-in: OTLP/HTTP with JSON bodies on POST /v1/traces, as @opentelemetry/exporter-trace-otlp-http sends them. */
export function startFakeOtlpReceiver(): FakeOtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const headers: Record<string, string>[] = [];
  const server = startFakeServer({
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/traces") return new Response("not found", { status: 404 });
      if (!(request.headers.get("content-type") ?? "").includes("json")) return new Response("only OTLP/JSON here", { status: 415 });
      headers.push(Object.fromEntries(request.headers));
      const body = (await request.json()) as OtlpTraceRequest;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ? span.parentSpanId : null,
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      return Response.json({});
    },
  });
  return {
    tracesUrl: `${server.origin}/v1/traces`,
    spans,
    headers,
    waitForSpans: (holds, what) => waitFor(() => (holds(spans) ? spans : null), what),
    close: () => server.close(),
  };
}

/** Tracing configured to export to the receiver at `tracesUrl`, every span sampled, batches sent every 20 ms. */
export function tracingConfigFor(tracesUrl: string): TracingConfig {
  return {
    tracesUrl,
    headers: { "x-collector-key": "collector-secret" },
    serviceName: "tollgate-under-test",
    resourceAttributes: { "deployment.environment.name": "test" },
    sampler: "parentbased_always_on",
    samplerArg: 1,
    captureContent: false,
    scheduleDelayMs: 20,
  };
}

/** `bytes` random bytes in hex: a trace id (16) or a span id (8). */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
