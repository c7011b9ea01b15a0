import { describe, expect, test } from "bun:test";
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

  test("key=value lists skip malformed pairs", () => {
    expect(keyValueList("a=1,,=2,b,c = 3 ")).toEqual({ a: "1", c: "3" });
  });
});
