import { describe, expect, test } from "bun:test";
import type { TracingConfig } from "./call-trace";
import { exporterFor } from "./otel-tracing";

const grpcConfig = (headers: Record<string, string>): TracingConfig => ({
  tracesUrl: "http://127.0.0.1:4317",
  protocol: "grpc",
  headers,
  serviceName: "tollgate",
  resourceAttributes: {},
  sampler: "parentbased_always_on",
  samplerArg: 1,
  captureContent: false,
  scheduleDelayMs: 5000,
});

describe("exporterFor over grpc", () => {
  test("a header gRPC cannot carry stops the start with its name, never its value", () => {
    for (const [name, value] of [
      ["api key", "sk-collector-secret"],
      ["x-api-key", "sk-collector-secret\u00e9"],
      ["key-bin", "sk-collector-secret"],
    ] as const) {
      let message = "";
      try {
        exporterFor(grpcConfig({ [name]: value }));
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(`the collector header "${name}" cannot be sent as gRPC metadata`);
      expect(message).not.toContain("sk-collector-secret");
    }
  });
});
