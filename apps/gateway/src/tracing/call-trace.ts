import type { TokenUsage } from "@tollgate/shared";

/**
 * What a traced /v1 call reports to its trace, stage by stage. The gateway holds one only when tracing is
 * configured (services.tracing non-null, chosen once at startup): with tracing off no trace object exists,
 * and every hook on the hot path is a single null check.
 */
export interface CallTrace {
  /** The admitted body: request parameters (and, with content capture, the prompt) for the attempt spans. */
  requested(body: Record<string, unknown>): void;
  /**
   * One upstream attempt begins (a client span, child of the call's server span). Returns the headers that
   * carry the attempt's context to the upstream (`traceparent`, and `tracestate` when the client sent one).
   */
  attemptStarted(attempt: TracedAttempt): Record<string, string>;
  /** The attempt in flight failed (connection, timeout, a retryable or channel-fault answer): its span ends. */
  attemptFailed(errorType: string, status?: number): void;
  /** A whole answer's body, in the client's format: response model and finish reasons are read from it. */
  answered(body: string): void;
  /**
   * The upstream's streamed answer, watched as it passes for its finish reasons (read before the relay
   * sees each chunk, so they are known when the stream's end is accounted).
   */
  watchStream(response: Response): Response;
  /** The call ends (exactly once): the open attempt span and the server span end with what was accounted. */
  finished(summary: CallSummary): void;
}

export interface TracedAttempt {
  /** The provider's adapter type (openai-compatible, anthropic, gemini, bedrock, vertex, azure-openai). */
  providerType: string;
  channelId: number;
  channelName: string;
  upstreamModel: string;
  /** The upstream's URL, for server.address. */
  url: string;
}

export interface TracedToolCall {
  /** The MCP server's registered name (tollgate.mcp.server). */
  server: string;
  /** The tool as the client named it, `server__tool` (gen_ai.tool.name). */
  tool: string;
  requestId: string;
}

export interface CallSummary {
  status: number;
  errorCode: string | null;
  usage: TokenUsage | null;
  /** Micro-USD. */
  cost: number;
  model: string;
  upstreamModel: string | null;
  stream: boolean;
  tokenId: number | null;
  userId: number | null;
  /** The caller's routing group. */
  group: string | null;
  /** The team the key belongs to; null for a personal key. */
  teamId: number | null;
  /** hit, miss, bypass or refresh; null when the response cache was not consulted. */
  cache: string | null;
}

/** Builds a trace for each /v1 call; null in services when tracing is off. */
export interface GatewayTracing {
  startCall(request: Request, endpoint: string, route: string, clientAddress: string | null, requestId: string): CallTrace;
  /**
   * One MCP tools/call: an `execute_tool {server__tool}` span (GenAI conventions), child of the /mcp
   * request's `traceparent` when `headers` carry one. Only its finished() reports anything.
   */
  startToolCall(headers: Headers | null, call: TracedToolCall): CallTrace;
  /** Exports every span ended so far (tests wait for their spans with it). */
  flush(): Promise<void>;
  /** Exports what is buffered and stops the exporter (services.stop()). */
  shutdown(): Promise<void>;
}

/** How spans travel to the collector (OTEL_EXPORTER_OTLP_PROTOCOL's values): OTLP over HTTP with JSON or protobuf bodies, or over gRPC. */
export const OTLP_PROTOCOLS = ["http/json", "http/protobuf", "grpc"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** Tracing as the server's environment configures it (OTEL_* variables, parsed in apps/server/src/env.ts). */
export interface TracingConfig {
  /**
   * Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT, + /v1/traces over
   * HTTP, as it is over gRPC (http:// plain text, https:// TLS).
   */
  tracesUrl: string;
  /**
   * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: http/json (the default, as before
   * these variables were read), http/protobuf or grpc.
   */
  protocol: OtlpProtocol;
  /** OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (the latter wins). */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; default "tollgate". */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER (always_on, always_off, traceidratio and their parentbased_ forms); default parentbased_always_on. */
  sampler: string;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers. */
  samplerArg: number;
  /** OTEL_GENAI_CAPTURE_CONTENT=true: prompts and answers are recorded on the attempt spans. */
  captureContent: boolean;
  /** Batch export delay (OTEL_BSP_SCHEDULE_DELAY, default 5000 ms). */
  scheduleDelayMs: number;
}
