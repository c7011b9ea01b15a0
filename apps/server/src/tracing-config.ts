import type { TracingConfig } from "@tollgate/gateway/tracing/call-trace";
import type { ServerEnvironment } from "./env";

/** OpenTelemetry's `key=value,key=value` lists (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES), values URL-encoded. */
export function keyValueList(value: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const pair of value.split(",")) {
    const separator = pair.indexOf("=");
    if (separator <= 0) continue;
    const key = pair.slice(0, separator).trim();
    const raw = pair.slice(separator + 1).trim();
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      decoded = raw;
    }
    if (key) entries[key] = decoded;
  }
  return entries;
}

/** Tracing as the OTEL_* variables configure it; null (no tracing, nothing on the hot path) without an OTLP endpoint. */
export function tracingConfigFrom(environment: ServerEnvironment): TracingConfig | null {
  const protocol = environment.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? environment.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/json";
  const base = environment.OTEL_EXPORTER_OTLP_ENDPOINT;
  // OTLP/HTTP posts each signal to its own path under the base URL; gRPC names the service in the call instead.
  const baseTracesUrl = base && protocol !== "grpc" ? `${base.replace(/\/+$/, "")}/v1/traces` : base;
  const tracesUrl = environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? baseTracesUrl;
  if (!tracesUrl || environment.OTEL_SDK_DISABLED) return null;
  const resourceAttributes = keyValueList(environment.OTEL_RESOURCE_ATTRIBUTES);
  return {
    tracesUrl,
    protocol,
    headers: { ...keyValueList(environment.OTEL_EXPORTER_OTLP_HEADERS), ...keyValueList(environment.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: environment.OTEL_SERVICE_NAME ?? resourceAttributes["service.name"] ?? "tollgate",
    resourceAttributes,
    sampler: environment.OTEL_TRACES_SAMPLER,
    samplerArg: environment.OTEL_TRACES_SAMPLER_ARG,
    captureContent: environment.OTEL_GENAI_CAPTURE_CONTENT,
    scheduleDelayMs: environment.OTEL_BSP_SCHEDULE_DELAY,
  };
}
