import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { OtlpProtocol } from "@tollgate/gateway/tracing/call-trace";
import { type FakeOtlpReceiver, GRPC_CONTENT_TYPE, randomHex, startFakeOtlpGrpcReceiver, startFakeOtlpReceiver, tracingConfigFor } from "./helpers/fake-otlp-receiver";
import { teams } from "@tollgate/db";
import { type GatewayStack, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Tests here start gateways on fresh databases (seconds on a busy machine): a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

let receiver: FakeOtlpReceiver;
let stack: GatewayStack;
let key: string;

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

function chat(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );
}

/** The spans of one trace, once its server span and `clientSpans` attempt spans have arrived. */
async function spansOf(traceId: string, clientSpans: number) {
  await stack.gateway.services.tracing!.flush();
  const spans = await receiver.waitForSpans(
    (all) => all.filter((span) => span.traceId === traceId && span.kind === CLIENT).length >= clientSpans && all.some((span) => span.traceId === traceId && span.kind === SERVER),
    `the spans of trace ${traceId}`,
  );
  const ofTrace = spans.filter((span) => span.traceId === traceId);
  return { server: ofTrace.find((span) => span.kind === SERVER)!, clients: ofTrace.filter((span) => span.kind === CLIENT) };
}

beforeAll(async () => {
  receiver = startFakeOtlpReceiver();
  stack = await startGatewayStack({ gateway: { tracing: tracingConfigFor(receiver.tracesUrl), maxUpstreamAttempts: 3 } });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["traced-model"], name: "first" });
  await stack.seed.price("traced-model", 1, 2);
  key = (await stack.seed.token({ userId: stack.userId })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
}, SETUP_TIMEOUT_MS);

describe("OpenTelemetry traces", () => {
  test("a team's key is named by its team on the server span", async () => {
    const [team] = await stack.database.handle.db.insert(teams).values({ name: `traced-${randomHex(4)}` }).returning({ id: teams.id });
    const teamKey = (await stack.seed.token({ userId: stack.userId, teamId: team!.id })).secret;
    const traceId = randomHex(16);
    stack.upstream.enqueue({ kind: "ok", content: "for the team" });
    const response = await stack.gateway.handle(
      new Request("http://gateway.test/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${teamKey}`, "content-type": "application/json", traceparent: `00-${traceId}-${randomHex(8)}-01` },
        body: JSON.stringify({ model: "traced-model", messages: [{ role: "user", content: "hello" }] }),
      }),
    );
    expect(response.status).toBe(200);
    await response.text();
    const { server } = await spansOf(traceId, 1);
    expect(server.attributes["tollgate.team.id"]).toBe(team!.id);
  });

  test("a streamed call is one server span continuing the client's traceparent, with a GenAI client span whose context reaches the upstream", async () => {
    const traceId = randomHex(16);
    const parentSpanId = randomHex(8);
    stack.upstream.enqueue({ kind: "ok", content: "streamed words here", promptTokens: 11, completionTokens: 3 });
    const response = await chat(
      { model: "traced-model", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "secret prompt text" }] },
      { traceparent: `00-${traceId}-${parentSpanId}-01` },
    );
    expect(response.status).toBe(200);
    await response.text();
    const { server, clients } = await spansOf(traceId, 1);
    expect(server.parentSpanId).toBe(parentSpanId);
    expect(server.name).toBe("POST /v1/chat/completions");
    expect(server.attributes["http.request.method"]).toBe("POST");
    expect(server.attributes["http.route"]).toBe("/v1/chat/completions");
    expect(server.attributes["http.response.status_code"]).toBe(200);
    expect(server.attributes["tollgate.token.id"]).toBeGreaterThan(0);
    expect(server.attributes["tollgate.user.id"]).toBe(stack.userId);
    expect(server.attributes["tollgate.team.id"]).toBeUndefined();
    expect(server.resource["service.name"]).toBe("tollgate-under-test");
    expect(server.resource["deployment.environment.name"]).toBe("test");
    const [attempt] = clients;
    expect(attempt!.parentSpanId).toBe(server.spanId);
    expect(attempt!.name).toBe("chat traced-model");
    expect(attempt!.attributes["gen_ai.operation.name"]).toBe("chat");
    expect(attempt!.attributes["gen_ai.provider.name"]).toBe("openai");
    expect(attempt!.attributes["gen_ai.request.model"]).toBe("traced-model");
    expect(attempt!.attributes["gen_ai.response.model"]).toBe("traced-model");
    expect(attempt!.attributes["gen_ai.usage.input_tokens"]).toBe(11);
    expect(attempt!.attributes["gen_ai.usage.output_tokens"]).toBe(3);
    expect(attempt!.attributes["tollgate.stream"]).toBe(true);
    expect(attempt!.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(typeof attempt!.attributes["tollgate.channel.id"]).toBe("number");
    // The upstream was sent the attempt's context: same trace, the attempt span as its parent.
    const sent = stack.upstream.requests.at(-1)!;
    expect(sent.headers.traceparent).toBe(`00-${traceId}-${attempt!.spanId}-01`);
    // No prompt or completion text without OTEL_GENAI_CAPTURE_CONTENT, and never the key.
    const everything = JSON.stringify(receiver.spans);
    expect(everything).not.toContain("secret prompt text");
    expect(everything).not.toContain("streamed words");
    expect(everything).not.toContain(key);
    expect(receiver.headers.at(-1)!["x-collector-key"]).toBe("collector-secret");
    // No OTEL_EXPORTER_OTLP_PROTOCOL: OTLP/JSON, as before the variable was read.
    expect(server.contentType).toBe("application/json");
  });

  test("a whole answer records its finish reasons", async () => {
    const traceId = randomHex(16);
    stack.upstream.enqueue({ kind: "ok", content: "whole answer", promptTokens: 5, completionTokens: 2 });
    const response = await chat({ model: "traced-model", messages: [{ role: "user", content: "hi" }], temperature: 0.5 }, { traceparent: `00-${traceId}-${randomHex(8)}-01` });
    expect(response.status).toBe(200);
    const { clients } = await spansOf(traceId, 1);
    expect(clients[0]!.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(clients[0]!.attributes["gen_ai.request.temperature"]).toBe(0.5);
    expect(clients[0]!.attributes["tollgate.cost_micros"]).toBeGreaterThan(0);
  });

  test("a failed-over call has two client spans: the failed attempt with its error type, then the one that answered", async () => {
    const model = "traced-failover";
    await stack.seed.channel({ baseUrl: stack.upstream.url, models: [model], name: "primary", priority: 10 });
    await stack.seed.channel({ baseUrl: stack.upstream.url, models: [model], name: "secondary", priority: 0 });
    await stack.seed.price(model, 1, 2);
    const traceId = randomHex(16);
    stack.upstream.enqueue({ kind: "error", status: 503 });
    stack.upstream.enqueue({ kind: "ok", content: "second try", promptTokens: 7, completionTokens: 2 });
    const response = await chat(
      { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] },
      { traceparent: `00-${traceId}-${randomHex(8)}-01` },
    );
    expect(response.status).toBe(200);
    await response.text();
    const { server, clients } = await spansOf(traceId, 2);
    expect(clients).toHaveLength(2);
    const failed = clients.find((span) => span.statusCode === ERROR)!;
    const answered = clients.find((span) => span.statusCode !== ERROR)!;
    expect(failed.attributes["error.type"]).toBeDefined();
    expect(failed.attributes["http.response.status_code"]).toBe(503);
    expect(failed.attributes["tollgate.channel.name"]).toBe("primary");
    expect(answered.attributes["tollgate.channel.name"]).toBe("secondary");
    expect(answered.attributes["gen_ai.usage.input_tokens"]).toBe(7);
    expect(answered.attributes["error.type"]).toBeUndefined();
    for (const span of clients) expect(span.parentSpanId).toBe(server.spanId);
    // Each attempt sent its own span as the upstream's parent.
    const sentParents = stack.upstream.requests.slice(-2).map((request) => request.headers.traceparent?.split("-")[2]);
    expect(new Set(sentParents)).toEqual(new Set([failed.spanId, answered.spanId]));
  });

  test("a response-cache hit is a server span marked hit, with no upstream attempt", async () => {
    const body = { model: "traced-model", messages: [{ role: "user", content: `cached ${crypto.randomUUID()}` }] };
    stack.upstream.enqueue({ kind: "ok", content: "cached words" });
    await (await chat(body, { "x-tollgate-cache": "on" })).text();
    const traceId = randomHex(16);
    const hit = await chat(body, { "x-tollgate-cache": "on", traceparent: `00-${traceId}-${randomHex(8)}-01` });
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    await stack.gateway.services.tracing!.flush();
    const spans = await receiver.waitForSpans((all) => all.some((span) => span.traceId === traceId && span.kind === SERVER), "the hit's server span");
    const ofTrace = spans.filter((span) => span.traceId === traceId);
    expect(ofTrace.find((span) => span.kind === SERVER)!.attributes["tollgate.cache"]).toBe("hit");
    expect(ofTrace.filter((span) => span.kind === CLIENT)).toHaveLength(0);
  });

  test("a call without a traceparent starts a trace of its own", async () => {
    stack.upstream.enqueue({ kind: "ok", content: "fresh" });
    const before = receiver.spans.length;
    const response = await chat({ model: "traced-model", messages: [{ role: "user", content: "no parent" }] });
    expect(response.status).toBe(200);
    await stack.gateway.services.tracing!.flush();
    const spans = await receiver.waitForSpans((all) => all.slice(before).some((span) => span.kind === SERVER), "a root server span");
    const server = spans.slice(before).find((span) => span.kind === SERVER)!;
    expect(server.parentSpanId).toBeNull();
    expect(stack.upstream.requests.at(-1)!.headers.traceparent).toContain(server.traceId);
  });

  test("a garbage, all-zero or 10 KB traceparent (with a 10 KB tracestate) is ignored: the call starts a trace of its own and passes none of it on", async () => {
    const garbage = ["garbage", `00-${"z".repeat(32)}-${randomHex(8)}-01`, `00-${"0".repeat(32)}-${"0".repeat(16)}-01`, `ff-${randomHex(16)}-${randomHex(8)}-01`, `00-${randomHex(16)}-${randomHex(8)}-01-${"x".repeat(10_000)}x`, "0".repeat(10_000)];
    for (const traceparent of garbage) {
      stack.upstream.enqueue({ kind: "ok", content: "fresh" });
      const response = await chat({ model: "traced-model", messages: [{ role: "user", content: "garbage parent" }] }, { traceparent, tracestate: `k=${"v".repeat(10_000)}` });
      expect(response.status).toBe(200);
      const sent = stack.upstream.requests.at(-1)!.headers;
      expect(sent.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      expect(sent.tracestate ?? "").not.toContain("vvvvvvvvvv");
      const traceId = sent.traceparent!.split("-")[1]!;
      const { server } = await spansOf(traceId, 1);
      expect(server.parentSpanId).toBeNull();
    }
  });
});

describe("OTEL_GENAI_CAPTURE_CONTENT=true", () => {
  test("prompts and answers, whole and streamed, are recorded on the attempt spans", async () => {
    const capturing = await startGatewayStack({ gateway: { tracing: { ...tracingConfigFor(receiver.tracesUrl), serviceName: "capturing", captureContent: true } } });
    try {
      await capturing.seed.channel({ baseUrl: capturing.upstream.url, models: ["captured-model"] });
      const token = await capturing.seed.token({ userId: capturing.userId });
      const call = (stream: boolean, prompt: string) =>
        capturing.gateway.handle(
          new Request("http://gateway.test/v1/chat/completions", {
            method: "POST",
            headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json" },
            body: JSON.stringify({ model: "captured-model", stream, messages: [{ role: "user", content: prompt }] }),
          }),
        );
      capturing.upstream.enqueue({ kind: "ok", content: "whole reply text" });
      await (await call(false, "whole prompt text")).text();
      capturing.upstream.enqueue({ kind: "ok", content: "streamed reply text" });
      await (await call(true, "streamed prompt text")).text();
      await capturing.gateway.services.tracing!.flush();
      const spans = await receiver.waitForSpans(
        (all) => all.filter((span) => span.resource["service.name"] === "capturing" && span.kind === CLIENT).length >= 2,
        "the capturing gateway's attempt spans",
      );
      const attempts = spans.filter((span) => span.resource["service.name"] === "capturing" && span.kind === CLIENT);
      const whole = attempts.find((span) => String(span.attributes["gen_ai.input.messages"]).includes("whole prompt text"))!;
      const streamed = attempts.find((span) => String(span.attributes["gen_ai.input.messages"]).includes("streamed prompt text"))!;
      expect(String(whole.attributes["gen_ai.output.messages"])).toContain("whole reply text");
      expect(String(streamed.attributes["gen_ai.output.messages"])).toContain("streamed reply text");
    } finally {
      await capturing.stop();
    }
  });
});

const ENCODED_EXPORTS: { protocol: OtlpProtocol; contentType: string; startReceiver: () => FakeOtlpReceiver | Promise<FakeOtlpReceiver> }[] = [
  { protocol: "http/protobuf", contentType: "application/x-protobuf", startReceiver: startFakeOtlpReceiver },
  { protocol: "grpc", contentType: GRPC_CONTENT_TYPE, startReceiver: startFakeOtlpGrpcReceiver },
];

for (const { protocol, contentType, startReceiver } of ENCODED_EXPORTS) {
  describe(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}`, () => {
    test("spans reach the collector in protobuf messages that decode to the call's server and GenAI client spans", async () => {
      const collector = await startReceiver();
      const exporting = await startGatewayStack({ gateway: { tracing: { ...tracingConfigFor(collector.tracesUrl, protocol), serviceName: `exporting-${protocol}` } } });
      try {
        await exporting.seed.channel({ baseUrl: exporting.upstream.url, models: ["encoded-model"] });
        const token = await exporting.seed.token({ userId: exporting.userId });
        const traceId = randomHex(16);
        const parentSpanId = randomHex(8);
        exporting.upstream.enqueue({ kind: "ok", content: "encoded words", promptTokens: 13, completionTokens: 4 });
        const response = await exporting.gateway.handle(
          new Request("http://gateway.test/v1/chat/completions", {
            method: "POST",
            headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json", traceparent: `00-${traceId}-${parentSpanId}-01` },
            body: JSON.stringify({ model: "encoded-model", stream: true, stream_options: { include_usage: true }, temperature: 0.25, messages: [{ role: "user", content: "hi" }] }),
          }),
        );
        expect(response.status).toBe(200);
        await response.text();
        await exporting.gateway.services.tracing!.flush();
        const spans = await collector.waitForSpans(
          (all) => all.some((span) => span.traceId === traceId && span.kind === SERVER) && all.some((span) => span.traceId === traceId && span.kind === CLIENT),
          `the spans exported over ${protocol}`,
        );
        for (const span of spans) expect(span.contentType).toBe(contentType);
        const server = spans.find((span) => span.traceId === traceId && span.kind === SERVER)!;
        const attempt = spans.find((span) => span.traceId === traceId && span.kind === CLIENT)!;
        expect(server.parentSpanId).toBe(parentSpanId);
        expect(server.name).toBe("POST /v1/chat/completions");
        expect(server.attributes["http.response.status_code"]).toBe(200);
        expect(server.attributes["tollgate.user.id"]).toBe(exporting.userId);
        expect(server.resource["service.name"]).toBe(`exporting-${protocol}`);
        expect(server.resource["deployment.environment.name"]).toBe("test");
        expect(attempt.parentSpanId).toBe(server.spanId);
        expect(attempt.name).toBe("chat encoded-model");
        expect(attempt.statusCode).toBe(0);
        expect(attempt.attributes["gen_ai.request.model"]).toBe("encoded-model");
        expect(attempt.attributes["gen_ai.request.temperature"]).toBe(0.25);
        expect(attempt.attributes["gen_ai.usage.input_tokens"]).toBe(13);
        expect(attempt.attributes["gen_ai.usage.output_tokens"]).toBe(4);
        expect(attempt.attributes["tollgate.stream"]).toBe(true);
        expect(attempt.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
        expect(exporting.upstream.requests.at(-1)!.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);
        expect(collector.headers.length).toBeGreaterThan(0);
        for (const headers of collector.headers) expect(headers["x-collector-key"]).toBe("collector-secret");
      } finally {
        await exporting.stop();
        await collector.close();
      }
    });
  });
}

describe("a collector that does not answer", () => {
  test.each([
    ["http/json", startFakeOtlpReceiver],
    ["grpc", startFakeOtlpGrpcReceiver],
  ] as const)("over %s, calls are answered as usual, and the gateway stops", async (protocol, startReceiver) => {
    const closed = await startReceiver();
    const unreachable = closed.tracesUrl;
    await closed.close();
    const orphan = await startGatewayStack({ gateway: { tracing: tracingConfigFor(unreachable, protocol) } });
    let stopped = false;
    try {
      await orphan.seed.channel({ baseUrl: orphan.upstream.url, models: ["lonely-model"] });
      const token = await orphan.seed.token({ userId: orphan.userId });
      const response = await orphan.gateway.handle(
        new Request("http://gateway.test/v1/chat/completions", {
          method: "POST",
          headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "lonely-model", messages: [{ role: "user", content: "hi" }] }),
        }),
      );
      expect(response.status).toBe(200);
      await orphan.stop();
      stopped = true;
    } finally {
      if (!stopped) await orphan.stop();
    }
    expect(stopped).toBe(true);
  });
});

describe("tracing off", () => {
  test("a gateway without an OTLP endpoint builds no tracer and sends no traceparent upstream", async () => {
    const untraced = await startGatewayStack();
    try {
      expect(untraced.gateway.services.tracing).toBeNull();
      await untraced.seed.channel({ baseUrl: untraced.upstream.url, models: ["plain-model"] });
      const token = await untraced.seed.token({ userId: untraced.userId });
      const response = await untraced.gateway.handle(
        new Request("http://gateway.test/v1/chat/completions", {
          method: "POST",
          headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json", traceparent: `00-${randomHex(16)}-${randomHex(8)}-01` },
          body: JSON.stringify({ model: "plain-model", messages: [{ role: "user", content: "hi" }] }),
        }),
      );
      expect(response.status).toBe(200);
      expect(untraced.upstream.requests.at(-1)!.headers.traceparent).toBeUndefined();
    } finally {
      await untraced.stop();
    }
  });
});
