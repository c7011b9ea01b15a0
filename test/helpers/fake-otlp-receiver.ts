import { Server as GrpcServer, type handleUnaryCall, type MethodDefinition, ServerCredentials } from "@grpc/grpc-js";
import otlpProtobufRoot from "@opentelemetry/otlp-proto-exporter-base/build/src/generated/root";
import type { OtlpProtocol, TracingConfig } from "@tollgate/gateway/tracing/call-trace";
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

/** Ids are hex in OTLP/JSON, bytes in protobuf. */
type OtlpId = string | Uint8Array;

interface OtlpSpan {
  traceId: OtlpId;
  spanId: OtlpId;
  parentSpanId?: OtlpId;
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
  /** The content type of the export request that carried the span. */
  contentType: string;
}

interface ProtobufMessageType {
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: { longs: StringConstructor }): OtlpTraceRequest;
}

/**
 * The collector's request message, from the protobuf.js code that OpenTelemetry generated from the official
 * opentelemetry-proto definitions (shipped in @opentelemetry/otlp-proto-exporter-base): a decoder that shares
 * nothing with the exporter under test, which encodes with code of its own.
 */
const ExportTraceServiceRequest = (otlpProtobufRoot as unknown as { opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtobufMessageType } } } } } })
  .opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

function hexOf(id: OtlpId | undefined): string | null {
  if (id === undefined || id.length === 0) return null;
  return typeof id === "string" ? id : Buffer.from(id).toString("hex");
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
  /** Where to export: http://127.0.0.1:PORT/v1/traces over HTTP, http://127.0.0.1:PORT over gRPC. */
  tracesUrl: string;
  spans: ReceivedSpan[];
  /** The export requests' headers (gRPC metadata over gRPC), in order (lower-cased names). */
  headers: Record<string, string>[];
  /** Resolves with the spans once `holds` is true of them. */
  waitForSpans(holds: (spans: ReceivedSpan[]) => boolean, what: string): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

/** The export request in a body of either OTLP/HTTP encoding; null: a content type OTLP/HTTP does not use. */
async function exportRequestOf(request: Request): Promise<OtlpTraceRequest | null> {
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType.startsWith("application/json")) return (await request.json()) as OtlpTraceRequest;
  if (contentType.startsWith("application/x-protobuf")) {
    return ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(new Uint8Array(await request.arrayBuffer())), { longs: String });
  }
  return null;
}

/** The spans a receiver collected, and the headers (or gRPC metadata) of the export requests that carried them. */
function receivedSpans() {
  const spans: ReceivedSpan[] = [];
  const headers: Record<string, string>[] = [];
  return {
    spans,
    headers,
    record(body: OtlpTraceRequest, contentType: string, requestHeaders: Record<string, string>): void {
      headers.push(requestHeaders);
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: hexOf(span.traceId) ?? "",
              spanId: hexOf(span.spanId) ?? "",
              parentSpanId: hexOf(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
              contentType,
            });
          }
        }
      }
    },
    waitForSpans: (holds: (spans: ReceivedSpan[]) => boolean, what: string) => waitFor(() => (holds(spans) ? spans : null), what),
  };
}

/**
 * A collector stand-in: OTLP/HTTP on POST /v1/traces with JSON bodies (@opentelemetry/exporter-trace-otlp-http)
 * or protobuf ones (@opentelemetry/exporter-trace-otlp-proto), answered in the request's encoding.
 */
export function startFakeOtlpReceiver(): FakeOtlpReceiver {
  const received = receivedSpans();
  const server = startFakeServer({
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/traces") return new Response("not found", { status: 404 });
      const body = await exportRequestOf(request);
      if (!body) return new Response("OTLP/HTTP takes application/json or application/x-protobuf", { status: 415 });
      const contentType = request.headers.get("content-type")!;
      received.record(body, contentType, Object.fromEntries(request.headers));
      // An empty ExportTraceServiceResponse: {} in JSON, no bytes in protobuf.
      return contentType.startsWith("application/json") ? Response.json({}) : new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  return { tracesUrl: `${server.origin}/v1/traces`, spans: received.spans, headers: received.headers, waitForSpans: received.waitForSpans, close: () => server.close() };
}

/** The content type that gRPC calls carry, recorded on the spans a gRPC receiver collects. */
export const GRPC_CONTENT_TYPE = "application/grpc";

/**
 * A collector stand-in for OTLP/gRPC (@opentelemetry/exporter-trace-otlp-grpc): a grpc-js server with the
 * collector's TraceService/Export method, requests decoded with the official definitions; its tracesUrl is
 * the plain-text endpoint, http://127.0.0.1:PORT.
 */
export async function startFakeOtlpGrpcReceiver(): Promise<FakeOtlpReceiver> {
  const received = receivedSpans();
  const server = new GrpcServer();
  const raw = (bytes: Buffer) => bytes;
  const exportMethod: MethodDefinition<Buffer, Buffer> = {
    path: "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  };
  const exportCall: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    const body = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(call.request), { longs: String });
    const metadata = Object.fromEntries(Object.entries(call.metadata.getMap()).map(([name, value]) => [name, String(value)]));
    received.record(body, GRPC_CONTENT_TYPE, metadata);
    // An empty ExportTraceServiceResponse: no bytes.
    callback(null, Buffer.alloc(0));
  };
  server.addService({ Export: exportMethod }, { Export: exportCall });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    tracesUrl: `http://127.0.0.1:${port}`,
    spans: received.spans,
    headers: received.headers,
    waitForSpans: received.waitForSpans,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** Tracing configured to export to the receiver at `tracesUrl`, every span sampled, batches sent every 20 ms. */
export function tracingConfigFor(tracesUrl: string, protocol: OtlpProtocol = "http/json"): TracingConfig {
  return {
    tracesUrl,
    protocol,
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
