import { type Attributes, type Context, defaultTextMapSetter, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type TextMapGetter, trace, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import type { CallSummary, CallTrace, GatewayTracing, TracedAttempt, TracedToolCall, TracingConfig } from "./call-trace";
import { answerFacts, genAiOperationOf, genAiProviderOf, streamedFinishReasons, streamedText } from "./gen-ai-names";

/** The longest a shutdown waits for the last spans to reach the collector. */
const SHUTDOWN_EXPORT_MS = 2_000;

/** The most of a streamed answer's events kept for content capture. */
const MAX_CAPTURED_STREAM_CHARS = 256 * 1024;

const headersGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

/** The sampler OTEL_TRACES_SAMPLER names (the SDK's environment names); unknown names: parent-based always on. */
export function samplerFor(name: string, ratio: number): Sampler {
  const bounded = Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(bounded);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(bounded) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Request parameters recorded on attempt spans (gen_ai.request.*), by the body's field name. */
const REQUEST_PARAMETERS: Record<string, string> = {
  temperature: "gen_ai.request.temperature",
  top_p: "gen_ai.request.top_p",
  max_tokens: "gen_ai.request.max_tokens",
  max_completion_tokens: "gen_ai.request.max_tokens",
  max_output_tokens: "gen_ai.request.max_tokens",
  frequency_penalty: "gen_ai.request.frequency_penalty",
  presence_penalty: "gen_ai.request.presence_penalty",
  seed: "gen_ai.request.seed",
};

class OtelCallTrace implements CallTrace {
  private readonly server: Span;
  private readonly serverContext: Context;
  private attempt: Span | null = null;
  private requestAttributes: Attributes = {};
  private responseModel: string | null = null;
  private finishReasons: string[] | null = null;
  private output: string | null = null;
  /** A streamed answer's events as they passed (content capture only), read into text when the call ends. */
  private streamEvents = "";

  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: W3CTraceContextPropagator,
    private readonly captureContent: boolean,
    private readonly endpoint: string,
    request: Request,
    route: string,
    clientAddress: string | null,
    requestId: string,
  ) {
    const parent = request.headers.has("traceparent") ? propagator.extract(ROOT_CONTEXT, request.headers, headersGetter) : ROOT_CONTEXT;
    const url = new URL(request.url);
    this.server = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_HTTP_ROUTE]: route,
          [ATTR_URL_PATH]: url.pathname,
          [ATTR_URL_SCHEME]: url.protocol.replace(":", ""),
          ...(clientAddress ? { [ATTR_CLIENT_ADDRESS]: clientAddress } : {}),
          ...(request.headers.has("user-agent") ? { [ATTR_USER_AGENT_ORIGINAL]: request.headers.get("user-agent")! } : {}),
          "tollgate.request_id": requestId,
          "tollgate.endpoint": endpoint,
        },
      },
      parent,
    );
    this.serverContext = trace.setSpan(parent, this.server);
  }

  requested(body: Record<string, unknown>): void {
    const attributes: Attributes = {};
    for (const [field, name] of Object.entries(REQUEST_PARAMETERS)) {
      const value = body[field];
      if (typeof value === "number") attributes[name] = value;
    }
    if (Array.isArray(body.stop)) attributes["gen_ai.request.stop_sequences"] = body.stop.filter((item): item is string => typeof item === "string");
    if (this.captureContent) {
      const prompt = body.messages ?? body.input ?? body.prompt ?? body.contents;
      if (prompt !== undefined) attributes["gen_ai.input.messages"] = JSON.stringify(prompt);
      if (typeof body.system === "string" || Array.isArray(body.system)) attributes["gen_ai.system_instructions"] = JSON.stringify(body.system);
    }
    this.requestAttributes = attributes;
  }

  attemptStarted(attempt: TracedAttempt): Record<string, string> {
    this.attemptFailed("superseded");
    const operation = genAiOperationOf(this.endpoint);
    let host: URL | null = null;
    try {
      host = new URL(attempt.url);
    } catch {
      host = null;
    }
    const span = this.tracer.startSpan(
      `${operation} ${attempt.upstreamModel}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": operation,
          "gen_ai.provider.name": genAiProviderOf(attempt.providerType),
          "gen_ai.request.model": attempt.upstreamModel,
          ...(host ? { [ATTR_SERVER_ADDRESS]: host.hostname, [ATTR_SERVER_PORT]: Number(host.port || (host.protocol === "https:" ? 443 : 80)) } : {}),
          "tollgate.channel.id": attempt.channelId,
          "tollgate.channel.name": attempt.channelName,
          ...this.requestAttributes,
        },
      },
      this.serverContext,
    );
    this.attempt = span;
    const carrier: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(this.serverContext, span), carrier, defaultTextMapSetter);
    return carrier;
  }

  attemptFailed(errorType: string, status?: number): void {
    const span = this.attempt;
    if (!span) return;
    this.attempt = null;
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  answered(body: string): void {
    const facts = answerFacts(body);
    this.responseModel = facts.model;
    this.finishReasons = facts.finishReasons;
    if (this.captureContent) this.output = body;
  }

  watchStream(response: Response): Response {
    if (!response.body) return response;
    const reasons = new Set<string>();
    this.finishReasons = null;
    const keep = this.captureContent
      ? (text: string) => {
          if (this.streamEvents.length < MAX_CAPTURED_STREAM_CHARS) this.streamEvents += text;
        }
      : undefined;
    const watched = response.body.pipeThrough(streamedFinishReasons(reasons, () => (this.finishReasons = [...reasons]), keep));
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  finished(summary: CallSummary): void {
    const failed = summary.status >= 400;
    const callAttributes: Attributes = {
      "tollgate.model": summary.model,
      "tollgate.cost_micros": summary.cost,
      "tollgate.stream": summary.stream,
      ...callerAttributes(summary),
      ...(summary.cache !== null ? { "tollgate.cache": summary.cache } : {}),
    };
    const span = this.attempt;
    this.attempt = null;
    if (span) {
      span.setAttributes(callAttributes);
      const responseModel = this.responseModel ?? summary.upstreamModel;
      if (responseModel) span.setAttribute("gen_ai.response.model", responseModel);
      if (summary.usage) {
        span.setAttribute("gen_ai.usage.input_tokens", summary.usage.promptTokens);
        span.setAttribute("gen_ai.usage.output_tokens", summary.usage.completionTokens);
      }
      if (this.finishReasons && this.finishReasons.length > 0) span.setAttribute("gen_ai.response.finish_reasons", this.finishReasons);
      if (this.captureContent) {
        const output = this.output ?? (this.streamEvents ? streamedText(this.streamEvents) : null);
        if (output) span.setAttribute("gen_ai.output.messages", output);
      }
      if (failed) {
        span.setAttribute(ATTR_ERROR_TYPE, summary.errorCode ?? String(summary.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
    this.server.setAttributes(callAttributes);
    this.server.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, summary.status);
    // HTTP semantic conventions: a server span is an error for 5xx only (a 4xx is the client's).
    if (summary.status >= 500) {
      this.server.setAttribute(ATTR_ERROR_TYPE, summary.errorCode ?? String(summary.status));
      this.server.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.server.end();
  }
}

/** The attributes every call's span carries about who made it (tollgate.*). */
function callerAttributes(summary: CallSummary): Attributes {
  return {
    ...(summary.tokenId !== null ? { "tollgate.token.id": summary.tokenId } : {}),
    ...(summary.userId !== null ? { "tollgate.user.id": summary.userId } : {}),
    ...(summary.group !== null ? { "tollgate.group": summary.group } : {}),
    ...(summary.teamId !== null ? { "tollgate.team.id": summary.teamId } : {}),
  };
}

/**
 * An MCP tools/call as one INTERNAL span, `execute_tool {server__tool}` (GenAI semantic conventions:
 * gen_ai.operation.name, gen_ai.tool.name, error.type), with the server, the caller and the price. The
 * model-call hooks do nothing: a tool call has no upstream attempts of its own to trace.
 */
class OtelToolTrace implements CallTrace {
  private readonly span: Span;

  constructor(tracer: Tracer, propagator: W3CTraceContextPropagator, headers: Headers | null, call: TracedToolCall) {
    const parent = headers?.has("traceparent") ? propagator.extract(ROOT_CONTEXT, headers, headersGetter) : ROOT_CONTEXT;
    this.span = tracer.startSpan(
      `execute_tool ${call.tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": call.tool,
          "tollgate.mcp.server": call.server,
          "tollgate.request_id": call.requestId,
          "tollgate.endpoint": "mcp",
        },
      },
      parent,
    );
  }

  requested(): void {}
  attemptStarted(): Record<string, string> {
    return {};
  }
  attemptFailed(): void {}
  answered(): void {}
  watchStream(response: Response): Response {
    return response;
  }

  finished(summary: CallSummary): void {
    this.span.setAttributes({ ...callerAttributes(summary), "tollgate.cost_micros": summary.cost, "tollgate.status": summary.status });
    if (summary.status >= 400 || summary.errorCode !== null) {
      this.span.setAttribute(ATTR_ERROR_TYPE, summary.errorCode ?? String(summary.status));
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

/**
 * The official exporter of the configured protocol; the collector's headers go as gRPC metadata over gRPC.
 * The protobuf and gRPC exporters (grpc-js with them) are loaded only when chosen: a process that exports
 * JSON, or nothing, never loads them.
 */
export function exporterFor(config: TracingConfig): SpanExporter {
  switch (config.protocol) {
    case "http/json":
      return new OtlpJsonTraceExporter({ url: config.tracesUrl, headers: config.headers });
    case "http/protobuf": {
      const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto") as typeof import("@opentelemetry/exporter-trace-otlp-proto");
      return new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers });
    }
    case "grpc": {
      const { Metadata } = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
      const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-grpc") as typeof import("@opentelemetry/exporter-trace-otlp-grpc");
      const metadata = new Metadata();
      for (const [name, value] of Object.entries(config.headers)) {
        try {
          metadata.set(name, value);
        } catch {
          // grpc-js's own message quotes a bad value, which is often an API key: it is never shown.
          throw new Error(`the collector header "${name}" cannot be sent as gRPC metadata (a name of letters, digits, "-", "_" and "." not ending in "-bin", a value of printable ASCII)`);
        }
      }
      return new OTLPTraceExporter({ url: config.tracesUrl, metadata });
    }
  }
}

/**
 * OpenTelemetry tracing with the official SDK: spans batched in memory and exported over OTLP (HTTP with
 * JSON or protobuf bodies, or gRPC, as `config.protocol` says, each with its official exporter) off the
 * request path by the BatchSpanProcessor; W3C trace context read from the client and passed on to each
 * upstream attempt. Built once, at startup, only when an OTLP endpoint is configured.
 */
export function createOtelTracing(config: TracingConfig): GatewayTracing {
  const resource = defaultResource().merge(resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName }));
  const exporter = exporterFor(config);
  const provider = new TracerProvider({
    resource,
    sampler: samplerFor(config.sampler, config.samplerArg),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.scheduleDelayMs })],
  });
  const tracer = provider.getTracer("tollgate-gateway");
  const propagator = new W3CTraceContextPropagator();
  return {
    startCall: (request, endpoint, route, clientAddress, requestId) =>
      new OtelCallTrace(tracer, propagator, config.captureContent, endpoint, request, route, clientAddress, requestId),
    startToolCall: (headers, call) => new OtelToolTrace(tracer, propagator, headers, call),
    flush: () => provider.forceFlush(),
    async shutdown() {
      // A collector that is down loses the last batch: the exporter's retries never hold up the shutdown
      // past SHUTDOWN_EXPORT_MS, nor fail it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_EXPORT_MS)));
      await Promise.race([provider.shutdown().catch(() => {}), deadline]);
      clearTimeout(timer);
    },
  };
}

