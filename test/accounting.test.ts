import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs, users } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import type { FakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import type { FreshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, waitFor, type GatewayStack, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let baseURL: string;
let seed: ReturnType<typeof seeder>;
let userId: number;

async function logsOf(tokenId: number) {
  return database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
}

function chat(key: string, body: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello there" }], ...body }),
    signal,
  });
}

beforeAll(async () => {
  stack = await startGatewayStack();
  ({ database, upstream, gateway, seed, userId } = stack);
  baseURL = await gateway.listen();
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini", "metered"] });
  await seed.price("gpt-4o-mini", 1, 2);
  // Prompts are free and each completion token costs one micro-USD: costs are easy to reason about.
  await seed.price("metered", 0, 1);
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("accounting", () => {
  test("a stream the client abandons cancels the upstream call and is billed for what was produced", async () => {
    const token = await seed.token({ userId });
    upstream.enqueue({ kind: "stall-stream", chunksBeforeStall: 4 });
    const controller = new AbortController();
    const response = await chat(token.secret, { stream: true }, controller.signal);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = "";
    while (received.split("\n\n").filter(Boolean).length < 5) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    await upstream.waitForStreamCancel();
    const [log] = await waitFor(async () => {
      await gateway.services.usage.flush();
      const logs = await logsOf(token.row.id);
      return logs.length > 0 ? logs : null;
    }, "the aborted stream's log row");
    expect(log).toMatchObject({ status: 499, stream: true, usageEstimated: true, errorCode: "client_closed" });
    expect(log!.completionTokens).toBeGreaterThan(0);
    expect(log!.promptTokens).toBeGreaterThan(0);
    expect(log!.cost).toBeGreaterThan(0);
    expect((await seed.tokenRow(token.row.id)).usedQuota).toBe(log!.cost);
  });

  test("a stream from an upstream that sends no usage is billed from the local tokenizer", async () => {
    const token = await seed.token({ userId });
    upstream.enqueue({ kind: "ok", content: "counted locally by the gateway", omitUsage: true });
    const response = await chat(token.secret, { stream: true });
    await response.text();
    const [log] = await waitFor(async () => {
      await gateway.services.usage.flush();
      const logs = await logsOf(token.row.id);
      return logs.length > 0 ? logs : null;
    }, "log row");
    expect(log).toMatchObject({ status: 200, usageEstimated: true });
    expect(log!.completionTokens).toBeGreaterThanOrEqual(5);
    expect(log!.completionTokens).toBeLessThan(15);
  });

  test("a failed call is logged with its status, costs nothing and releases its hold", async () => {
    const token = await seed.token({ userId, quotaLimit: 1_000_000 });
    upstream.enqueue({ kind: "error", status: 500 });
    const failed = await chat(token.secret, {});
    expect(failed.status).toBe(500);
    upstream.enqueue({ kind: "error", status: 400 });
    const requestsBefore = upstream.requests.length;
    expect((await chat(token.secret, {})).status).toBe(400);
    expect(upstream.requests.length).toBe(requestsBefore + 1);
    await gateway.services.usage.flush();
    const logs = await logsOf(token.row.id);
    expect(logs.map((log) => [log.status, log.cost])).toEqual([
      [500, 0],
      [400, 0],
    ]);
    // Both holds were released: nothing of the token's quota stays held, nothing was spent.
    expect(gateway.services.ledger.heldFor(token.row.id)).toBe(0);
    expect((await seed.tokenRow(token.row.id)).usedQuota).toBe(0);
  });

  test("50 concurrent requests on a token whose quota covers 5 never overspend", async () => {
    const token = await seed.token({ userId, quotaLimit: 5 * 1000 });
    upstream.setDefault({ kind: "ok", completionTokens: 1000, promptTokens: 10 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => chat(token.secret, { model: "metered", max_tokens: 1000 })),
    );
    upstream.setDefault({ kind: "ok" });
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(45);
    await gateway.services.usage.flush();
    expect((await seed.tokenRow(token.row.id)).usedQuota).toBe(5000);
    const logs = await logsOf(token.row.id);
    expect(logs.reduce((sum, log) => sum + log.cost, 0)).toBe(5000);
  });

  test("spend lowers the owner's balance, and a balance that cannot cover the worst case is refused", async () => {
    const owner = await seed.user({ balance: 3000, balanceUnlimited: false });
    const token = await seed.token({ userId: owner.id });
    upstream.enqueue({ kind: "ok", completionTokens: 1000 });
    expect((await chat(token.secret, { model: "metered", max_tokens: 1000 })).status).toBe(200);
    await gateway.services.usage.flush();
    const [row] = await database.handle.db.select().from(users).where(eq(users.id, owner.id));
    expect(row!.balance).toBe(2000);
    expect((await chat(token.secret, { model: "metered", max_tokens: 2500 })).status).toBe(429);
  });
});

describe("hourly rollup", () => {
  test("the write-behind keeps usage_hourly in step with the request log, latency included", async () => {
    const { usageHourly } = await import("@tollgate/db");
    const token = await seed.token({ userId });
    upstream.enqueue({ kind: "ok", promptTokens: 10, completionTokens: 20 });
    upstream.enqueue({ kind: "ok", promptTokens: 5, completionTokens: 1 });
    upstream.enqueue({ kind: "error", status: 400 });
    for (let index = 0; index < 3; index++) await (await chat(token.secret, {})).text();
    await gateway.services.usage.flush();
    const rows = await database.handle.db.select().from(usageHourly).where(eq(usageHourly.tokenId, token.row.id));
    expect(rows).toHaveLength(1);
    const logs = await logsOf(token.row.id);
    expect(rows[0]).toMatchObject({
      requests: 3,
      errors: 1,
      promptTokens: 15,
      completionTokens: 21,
      cost: logs.reduce((sum, log) => sum + log.cost, 0),
      model: "gpt-4o-mini",
      // Latency as a sum and a count, so that the channels page can show an average.
      latencyMsSum: logs.reduce((sum, log) => sum + log.latencyMs, 0),
      latencyCount: 3,
    });
  });
});

describe("batched request-log insert", () => {
  test("awkward text survives the write-behind exactly", async () => {
    const token = await seed.token({ userId, name: 'quote " backslash \\ comma , brace } {' });
    const response = await chat(token.secret, {});
    expect(response.status).toBe(200);
    await gateway.services.usage.flush();
    const [log] = await logsOf(token.row.id);
    expect(log!.tokenName).toBe('quote " backslash \\ comma , brace } {');
    expect(log!.channelsTried).toEqual([expect.any(Number)]);
    expect(log!.clientIp).toBe("127.0.0.1");
  });
});
