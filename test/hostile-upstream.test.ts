import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type HostileMode, type HostileUpstream, LOCATION_SECRET, RECORDER_TEXT, startFakeHostileUpstream } from "./helpers/fake-hostile-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/** Caps far below the defaults (64 MiB, 4 MiB), so that each attack is over quickly. */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_EVENT_BYTES = 256 * 1024;
const UPSTREAM_TIMEOUT_MS = 2000;
/** What the process may grow by while a hostile answer is read: the caps plus buffers, far below what it sends. */
const RSS_GROWTH_BOUND = 96 * 1024 * 1024;

let database: FreshDatabase;
let hostile: HostileUpstream;
let gemini: FakeGeminiUpstream;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;
let secret: string;
let channelCount = 0;

/** A channel of its own on the hostile upstream, so that what one test does to its health is its own. */
async function hostileChannel(
  type: "openai-compatible" | "anthropic",
  mode: HostileMode,
  config: Record<string, unknown> = {},
): Promise<{ id: number; model: string }> {
  const model = `hostile-${++channelCount}`;
  const row = await seed.channel({
    name: model,
    type,
    baseUrl: type === "anthropic" ? hostile.origin : hostile.url,
    apiKey: type === "anthropic" ? "sk-ant-hostile-channel-key" : "sk-hostile-channel-key",
    models: [model],
    config,
  });
  await seed.price(model, 1, 2);
  hostile.setMode(mode);
  return { id: row.id, model };
}

function chat(model: string, body: Record<string, unknown> = {}) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi there" }], ...body }),
    }),
  );
}

function messages(model: string, body: Record<string, unknown> = {}) {
  return gateway.handle(
    new Request("http://gateway.test/v1/messages", {
      method: "POST",
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: "user", content: "hi there" }], ...body }),
    }),
  );
}

/** The channel's last request-log row, once written (a stream's is settled after its local count). */
async function logOf(channelId: number) {
  return waitFor(async () => {
    await gateway.services.usage.flush();
    const rows = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.channelId, channelId)).orderBy(asc(requestLogs.id));
    return rows.at(-1);
  }, `a request-log row for channel ${channelId}`);
}

/** The most the process's RSS grew by, above where it stood when `work` began, until it settled. */
async function rssGrowthDuring<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
  Bun.gc(true);
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growth: peak - base };
  } finally {
    clearInterval(sampler);
  }
}

function isCoolingDown(channelId: number): boolean {
  return gateway.services.health.snapshot().get(channelId) === "cooldown";
}

beforeAll(async () => {
  database = await freshDatabase();
  hostile = await startFakeHostileUpstream({ safetyBytes: 64 * 1024 * 1024 });
  gemini = await startFakeGeminiUpstream({ requireApiKey: "gemini-test-key" });
  gateway = await startGateway(database.handle, {
    upstreamMaxBodyBytes: MAX_BODY_BYTES,
    upstreamMaxEventBytes: MAX_EVENT_BYTES,
    upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS,
    // One failure cools a channel down, and for long: a test sees whether its channel was charged a fault.
    channelHealth: { failureThreshold: 1, windowMs: 60_000, cooldownMs: 600_000, maxCooldownMs: 600_000 },
  });
  seed = seeder(database.handle, gateway.secretBox, [gateway]);
  userId = (await seed.user()).id;
  secret = (await seed.token({ userId })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await hostile?.close();
  await gemini?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("a hostile upstream", () => {
  for (const status of [302, 307] as const) {
    test(`an openai-compatible upstream's ${status} is a 502 for the client, never the other server's answer`, async () => {
      const channel = await hostileChannel("openai-compatible", { kind: "redirect", status });
      const response = await chat(channel.model);
      const text = await response.text();
      expect(response.status).toBe(502);
      expect(JSON.parse(text).error).toMatchObject({ code: "upstream_redirect", type: "server_error" });
      expect(text).not.toContain(RECORDER_TEXT);
      expect(text).not.toContain(LOCATION_SECRET);
      expect(text).not.toContain(hostile.recorder.origin);
      expect(hostile.recorder.requests).toEqual([]);
      expect(isCoolingDown(channel.id)).toBe(true);
    });
  }

  test("an Anthropic upstream's 302 never takes the channel key to the host it names", async () => {
    const channel = await hostileChannel("anthropic", { kind: "redirect", status: 302 });
    const response = await messages(channel.model);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(response.status).toBe(502);
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("api_error");
    expect(body.error.message).not.toContain(LOCATION_SECRET);
    expect(hostile.requests.at(-1)!.headers["x-api-key"]).toBe("sk-ant-hostile-channel-key");
    expect(hostile.recorder.requests.filter((request) => request.headers["x-api-key"] !== undefined)).toEqual([]);
    expect(hostile.recorder.requests).toEqual([]);
  });

  test("a JSON answer that never ends is cut at the body cap: 502 upstream_response_too_large, the upstream hung up on, memory bounded, the call billed", async () => {
    const channel = await hostileChannel("openai-compatible", { kind: "endless-json" });
    const cancelled = hostile.waitForCancel();
    const { value, growth } = await rssGrowthDuring(async () => {
      const response = await chat(channel.model);
      return { status: response.status, body: (await response.json()) as { error: { code: string; type: string } } };
    });
    expect(value.status).toBe(502);
    expect(value.body.error).toMatchObject({ code: "upstream_response_too_large", type: "server_error" });
    expect((await cancelled).bytes).toBeLessThan(64 * 1024 * 1024);
    expect(growth).toBeLessThan(RSS_GROWTH_BOUND);
    expect(isCoolingDown(channel.id)).toBe(true);
    const log = await logOf(channel.id);
    expect(log.status).toBe(502);
    expect(log.errorCode).toBe("upstream_response_too_large");
    expect(log.promptTokens).toBeGreaterThan(0);
    expect(log.completionTokens).toBeGreaterThan(0);
    expect(log.cost).toBeGreaterThan(0);
  });

  test("a stream whose one event never ends gets an error event in OpenAI's format and ends, billed for what it produced", async () => {
    const channel = await hostileChannel("openai-compatible", { kind: "endless-event", format: "openai" });
    const cancelled = hostile.waitForCancel();
    const { value, growth } = await rssGrowthDuring(async () => {
      const response = await chat(channel.model, { stream: true });
      return { status: response.status, text: await response.text() };
    });
    expect(value.status).toBe(200);
    expect(value.text).toContain('"content":"hello"');
    const events = value.text.trim().split("\n\n");
    const last = JSON.parse(events.at(-1)!.slice("data: ".length)) as { error: { code: string; type: string } };
    expect(last.error).toMatchObject({ code: "upstream_response_too_large", type: "server_error" });
    expect(value.text).not.toContain("[DONE]");
    expect(value.text.length).toBeLessThan(MAX_EVENT_BYTES);
    await cancelled;
    expect(growth).toBeLessThan(RSS_GROWTH_BOUND);
    expect(isCoolingDown(channel.id)).toBe(true);
    const log = await logOf(channel.id);
    expect(log.status).toBe(502);
    expect(log.errorCode).toBe("upstream_response_too_large");
    expect(log.completionTokens).toBeGreaterThan(0);
    expect(log.cost).toBeGreaterThan(0);
  });

  test("an Anthropic stream whose event never ends gets Anthropic's error event and ends, for an Anthropic client and for an OpenAI one", async () => {
    const channel = await hostileChannel("anthropic", { kind: "endless-event", format: "anthropic" });
    const native = await messages(channel.model, { stream: true });
    const nativeText = await native.text();
    expect(native.status).toBe(200);
    expect(nativeText).toContain('"text":"hello"');
    const lastEvent = nativeText.trim().split("\n\n").at(-1)!;
    expect(lastEvent.startsWith("event: error\n")).toBe(true);
    expect(JSON.parse(lastEvent.split("\ndata: ")[1]!)).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect(nativeText).not.toContain("message_stop");

    const translated = await chat(channel.model, { stream: true });
    const translatedText = await translated.text();
    expect(translatedText).toContain('"content":"hello"');
    const last = JSON.parse(translatedText.trim().split("\n\n").at(-1)!.slice("data: ".length)) as { error: { code: string } };
    expect(last.error.code).toBe("upstream_response_too_large");
    expect(translatedText).not.toContain("[DONE]");
  });

  test("a gzip bomb is stopped at the body cap as it inflates: 502, memory bounded", async () => {
    const channel = await hostileChannel("openai-compatible", { kind: "gzip-bomb", inflatedBytes: 128 * 1024 * 1024 });
    const { value, growth } = await rssGrowthDuring(async () => {
      const response = await chat(channel.model);
      return { status: response.status, body: (await response.json()) as { error: { code: string } } };
    });
    // What it sent is under the cap: the cap counts the bytes it inflates to.
    expect(hostile.sent.at(-1)!.bytes).toBeLessThan(MAX_BODY_BYTES);
    expect(value.status).toBe(502);
    expect(value.body.error.code).toBe("upstream_response_too_large");
    expect(growth).toBeLessThan(RSS_GROWTH_BOUND);
  });

  test("speech audio that never ends is relayed only up to the body cap, then the client's stream is errored", async () => {
    // What is measured is the body cap, not the time to the headers: this channel waits for them longer than
    // the suite's 2 s (UPSTREAM_TIMEOUT_MS, the timeout test's), which a loaded CI worker has been seen to pass.
    const channel = await hostileChannel("openai-compatible", { kind: "endless-json" }, { firstByteTimeoutMs: 15_000 });
    const cancelled = hostile.waitForCancel();
    const response = await gateway.handle(
      new Request("http://gateway.test/v1/audio/speech", {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: channel.model, voice: "alloy", input: "hello there" }),
      }),
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = 0;
    let failure: unknown = null;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).not.toBeNull();
    expect(received).toBeLessThanOrEqual(MAX_BODY_BYTES);
    await cancelled;
    expect(isCoolingDown(channel.id)).toBe(true);
    const log = await logOf(channel.id);
    expect(log.errorCode).toBe("upstream_response_too_large");
  });

  test("a whole answer that drips past UPSTREAM_TIMEOUT_MS is a 504, and /healthz answers while it runs", async () => {
    const channel = await hostileChannel("openai-compatible", { kind: "slow-drip", intervalMs: 50 });
    let settled = false;
    const call = chat(channel.model).then((response) => {
      settled = true;
      return response;
    });
    const dripping = hostile.sent.length;
    await waitFor(() => (hostile.sent[dripping]?.bytes ?? 0) > 1, "the upstream to start dripping");
    const health = await gateway.handle(new Request("http://gateway.test/healthz"));
    expect(health.status).toBe(200);
    expect(settled).toBe(false);
    const response = await call;
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("upstream_timeout");
    await hostile.waitForCancel();
    expect(isCoolingDown(channel.id)).toBe(true);
  });
});

describe("a request that breaks a translator", () => {
  /** A response_format schema nested deeper than the Gemini translation can walk (it throws a RangeError today). */
  function deepSchema(depth: number): string {
    return `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}`;
  }

  test("is answered for that client alone: the channel stays healthy and the next good call goes straight through", async () => {
    const row = await seed.channel({ name: "gemini", type: "gemini", baseUrl: gemini.url, apiKey: "gemini-test-key", models: ["gemini-flash"] });
    const before = gemini.requests.length;
    for (let attempt = 0; attempt < 3; attempt++) {
      const body = `{"model":"gemini-flash","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":${deepSchema(30_000)}}}}`;
      const response = await gateway.handle(
        new Request("http://gateway.test/v1/chat/completions", {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body,
        }),
      );
      expect([400, 500]).toContain(response.status);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBeString();
    }
    expect(gemini.requests.length).toBe(before);
    expect(gateway.services.health.snapshot().has(row.id)).toBe(false);
    expect(gateway.services.health.isAvailable(row.id)).toBe(true);
    gemini.enqueue({ kind: "text", text: "still served" });
    const good = await chat("gemini-flash");
    expect(good.status).toBe(200);
    expect(((await good.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("still served");
  });
});
