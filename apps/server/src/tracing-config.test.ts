import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readServerEnvironment } from "./env";
import { keyValueList, tracingConfigFrom } from "./tracing-config";

const environment = (values: Record<string, string>) => readServerEnvironment("all", { TOLLGATE_DATA_DIR: "/tmp/tollgate-test", ...values });

describe("tracingConfigFrom", () => {
  test("no OTLP endpoint, or OTEL_SDK_DISABLED=true: no tracing at all", () => {
    expect(tracingConfigFrom(environment({}))).toBeNull();
    expect(tracingConfigFrom(environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }))).toBeNull();
  });

  test("OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces; the traces endpoint is used as it is and wins", () => {
    expect(tracingConfigFrom(environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }))!.tracesUrl).toBe("http://collector:4318/v1/traces");
    const both = environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/otlp" });
    expect(tracingConfigFrom(both)!.tracesUrl).toBe("https://traces.example.com/otlp");
  });

  test("the standard variables set headers, service name, resource attributes, sampler and content capture", () => {
    const config = tracingConfigFrom(
      environment({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "api-key=abc%3D%3D,x-team=llm",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=gateway",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attributes,deployment.environment.name=prod",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
        OTEL_GENAI_CAPTURE_CONTENT: "true",
      }),
    )!;
    expect(config.headers).toEqual({ "api-key": "abc==", "x-team": "gateway" });
    expect(config.serviceName).toBe("from-attributes");
    expect(config.resourceAttributes["deployment.environment.name"]).toBe("prod");
    expect(config.sampler).toBe("parentbased_traceidratio");
    expect(config.samplerArg).toBe(0.25);
    expect(config.captureContent).toBe(true);
    expect(tracingConfigFrom(environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SERVICE_NAME: "gw" }))!.serviceName).toBe("gw");
    expect(tracingConfigFrom(environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }))!.captureContent).toBe(false);
  });

  test("OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf, grpc or http/json, the traces variable wins, and unset or empty keeps http/json", () => {
    const protocolOf = (values: Record<string, string>) => tracingConfigFrom(environment({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", ...values }))!.protocol;
    expect(protocolOf({})).toBe("http/json");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "" })).toBe("http/json");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" })).toBe("http/protobuf");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toBe("grpc");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toBe("http/protobuf");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" })).toBe("http/json");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" })).toBe("grpc");
  });

  test("over grpc the endpoint is used as it is: no /v1/traces is appended", () => {
    const grpc = (values: Record<string, string>) => tracingConfigFrom(environment({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", ...values }))!.tracesUrl;
    expect(grpc({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4317" })).toBe("http://collector:4317");
    expect(grpc({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4317", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com:443" })).toBe("https://traces.example.com:443");
    // The general variable asks for HTTP, the traces one for gRPC: the traces one decides the path too.
    expect(grpc({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4317" })).toBe("http://collector:4317");
  });

  test("an unknown protocol stops the server at startup with a message naming the variable and the supported values", () => {
    const start = (values: Record<string, string>) => {
      const script = `import { readServerEnvironment } from ${JSON.stringify(join(import.meta.dir, "env.ts"))}; readServerEnvironment("all"); console.log("started");`;
      const result = Bun.spawnSync([process.execPath, "-e", script], { env: { TOLLGATE_DATA_DIR: "/tmp/tollgate-test", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", ...values } });
      return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
    };
    for (const [variable, unknown] of [
      ["OTEL_EXPORTER_OTLP_PROTOCOL", "http/xml"],
      ["OTEL_EXPORTER_OTLP_PROTOCOL", "HTTP/PROTOBUF"],
      ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "protobuf"],
      ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc/json"],
    ] as const) {
      const refused = start({ [variable]: unknown });
      expect(refused.exitCode).toBe(2);
      expect(refused.stdout).not.toContain("started");
      expect(refused.stderr).toBe(`tollgate: invalid environment\n  ${variable}: must be one of http/json, http/protobuf, grpc\n`);
    }
    expect(start({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toMatchObject({ exitCode: 0, stdout: "started\n" });
  });

  test("key=value lists skip malformed pairs", () => {
    expect(keyValueList("a=1,,=2,b,c = 3 ")).toEqual({ a: "1", c: "3" });
  });
});
