import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type GatewayUnderTest, seeder, type StackWith, startStackWith, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: StackWith<{ primary: FakeOpenAIUpstream; backup: FakeOpenAIUpstream }>;
let primary: FakeOpenAIUpstream;
let backup: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;
let primaryChannel: number;
let backupChannel: number;
let secret: string;

const COOLDOWN_MS = 300;

function chat(body: Record<string, unknown> = {}, key = secret) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...body }),
    }),
  );
}

const lastLog = (tokenId: number) => stack.lastLog(tokenId);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({ primary: await keep(startFakeOpenAIUpstream()), backup: await keep(startFakeOpenAIUpstream()) }), {
    gateway: {
      channelHealth: { failureThreshold: 3, windowMs: 60_000, cooldownMs: COOLDOWN_MS, maxCooldownMs: COOLDOWN_MS },
      streamIdleTimeoutMs: 300,
    },
  });
  ({ primary, backup } = stack.fakes);
  ({ gateway, seed, userId } = stack);
  primaryChannel = (await seed.channel({ name: "primary", baseUrl: primary.url, models: ["gpt-4o-mini"], priority: 10 })).id;
  backupChannel = (await seed.channel({ name: "backup", baseUrl: backup.url, models: ["gpt-4o-mini"], priority: 0 })).id;
  secret = (await seed.token({ userId })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("routing and failover", () => {
  test("the higher priority channel serves while it is healthy", async () => {
    const before = backup.requests.length;
    expect((await chat()).status).toBe(200);
    expect(backup.requests.length).toBe(before);
  });

  test("a 500 from one channel fails over to the next; the client sees one success and the log lists both", async () => {
    const token = await seed.token({ userId });
    primary.enqueue({ kind: "error", status: 500 });
    backup.enqueue({ kind: "ok", content: "served by backup" });
    const response = await chat({}, token.secret);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("served by backup");
    const log = await lastLog(token.row.id);
    expect(log.channelsTried).toEqual([primaryChannel, backupChannel]);
    expect(log.channelId).toBe(backupChannel);
  });

  test("a 400 from the upstream is the caller's fault and is not retried", async () => {
    primary.enqueue({ kind: "error", status: 400 });
    const backupBefore = backup.requests.length;
    const response = await chat();
    expect(response.status).toBe(400);
    expect(backup.requests.length).toBe(backupBefore);
  });

  test("repeated failures cool a channel down; it is skipped, then probed and back when it recovers", async () => {
    // Two more failures (one happened above) trip the breaker.
    primary.enqueue({ kind: "error", status: 503 });
    primary.enqueue({ kind: "error", status: 502 });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    expect(gateway.services.health.isCoolingDown(primaryChannel)).toBe(true);
    const primaryBefore = primary.requests.length;
    expect((await chat()).status).toBe(200);
    expect(primary.requests.length).toBe(primaryBefore);
    // After the cool-down the next request probes the primary, which has recovered.
    await waitFor(() => !gateway.services.health.isCoolingDown(primaryChannel), "the cool-down to end");
    expect((await chat()).status).toBe(200);
    expect(primary.requests.length).toBe(primaryBefore + 1);
    expect(gateway.services.health.isAvailable(primaryChannel)).toBe(true);
  });

  test("an upstream that rejects the channel's key disables the channel, and the request is served elsewhere", async () => {
    const rejected = await startFakeOpenAIUpstream({ requireApiKey: "sk-the-right-key" });
    const channel = await seed.channel({ name: "bad key", baseUrl: rejected.url, models: ["keyed-model"], priority: 5, apiKey: "sk-wrong-key" });
    await seed.channel({ name: "good", baseUrl: backup.url, models: ["keyed-model"], priority: 0 });
    try {
      const response = await chat({ model: "keyed-model" });
      expect(response.status).toBe(200);
      const [row] = await waitFor(async () => {
        const rows = await stack.database.handle.db.select().from(channels).where(eq(channels.id, channel.id));
        return rows[0]?.status === "auto_disabled" ? rows : null;
      }, "the channel to be disabled");
      expect(row!.statusReason).toContain("401");
      expect(row!.statusReason).not.toContain("sk-wrong-key");
    } finally {
      await rejected.close();
    }
  });

  test("a stream that stalls is ended with an error event and billed for what was produced", async () => {
    const token = await seed.token({ userId });
    primary.enqueue({ kind: "stall-stream", chunksBeforeStall: 3 });
    const response = await chat({ stream: true }, token.secret);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("upstream_idle_timeout");
    await primary.waitForClientAbort();
    const log = await waitFor(async () => {
      const row = await lastLog(token.row.id).catch(() => null);
      return row ?? null;
    }, "the log row");
    expect(log).toMatchObject({ status: 504, errorCode: "upstream_idle_timeout", usageEstimated: true });
    expect(log.completionTokens).toBeGreaterThan(0);
  });
});
