import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cliOperator, rollToken } from "../packages/admin/src/index";
import { requestLogs } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type GatewayStack, type GatewayUnderTest, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { twoGatewaysForBlock } from "./helpers/two-gateways";
import { usePostgres } from "./helpers/fresh-database";

// A bound on hangs (a busy 2-core machine loads the tokenizer slowly), not a tuned timing.
setDefaultTimeout(60_000);

async function status(gateway: GatewayUnderTest, key: string): Promise<number> {
  const response = await gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
  await response.text();
  return response.status;
}

describe("token rotation on one instance", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startGatewayStack({ upstream: { chunkDelayMs: 0 } });
    await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
    await stack.seed.price("gpt-4o-mini", 1, 2);
  }, SETUP_TIMEOUT_MS);

  afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

  test("during the grace period both secrets work, bill the same token, and each one's last use is recorded", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1_000_000 });
    expect(await status(stack.gateway, token.secret)).toBe(200);
    const { secret } = await rollToken(stack.database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 3600 });
    expect(await status(stack.gateway, secret)).toBe(200);
    expect(await status(stack.gateway, token.secret)).toBe(200);
    await stack.gateway.services.usage.flush();
    const row = await stack.seed.tokenRow(token.row.id);
    expect(row.previousKeyLastUsedAt).not.toBeNull();
    expect(row.previousKeyLastUsedAt!.getTime()).toBeGreaterThanOrEqual(row.rolledAt!.getTime());
    expect(row.lastUsedAt!.getTime()).toBeGreaterThanOrEqual(row.rolledAt!.getTime());
    const logs = await stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token.row.id));
    expect(logs.map((log) => log.status)).toEqual([200, 200, 200]);
    expect(row.usedQuota).toBe(logs.reduce((sum, log) => sum + log.cost, 0));
  });

  test("a roll with no grace period refuses the old secret at once with 401", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    expect(await status(stack.gateway, token.secret)).toBe(200);
    const { secret } = await rollToken(stack.database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 0 });
    await waitFor(async () => (await status(stack.gateway, token.secret)) === 401, "the old secret refused");
    expect(await status(stack.gateway, secret)).toBe(200);
  });

  test("a cached old secret is refused when its grace period ends, without any notification", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const { secret } = await rollToken(stack.database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 1 });
    expect(await status(stack.gateway, token.secret)).toBe(200);
    await waitFor(async () => (await status(stack.gateway, token.secret)) === 401, "the grace period over");
    expect(await status(stack.gateway, secret)).toBe(200);
  });

  test("rolling again during a grace period refuses the secret from before at once", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const second = await rollToken(stack.database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 3600 });
    expect(await status(stack.gateway, token.secret)).toBe(200);
    const third = await rollToken(stack.database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 3600 });
    await waitFor(async () => (await status(stack.gateway, token.secret)) === 401, "the first secret refused");
    expect(await status(stack.gateway, second.secret)).toBe(200);
    expect(await status(stack.gateway, third.secret)).toBe(200);
  });
});

describe("token rotation across two instances on one Postgres", () => {
  const two = twoGatewaysForBlock();

  test.if(usePostgres)("both instances accept the old secret during its grace period and refuse it with 401 after", async () => {
    const { seed, database, upstream, first, second } = two.current;
    const user = await seed.user();
    await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini"] });
    await seed.price("gpt-4o-mini", 1, 2);
    const token = await seed.token({ userId: user.id });
    expect(await status(first, token.secret)).toBe(200);
    expect(await status(second, token.secret)).toBe(200);
    const { secret } = await rollToken(database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 2 });
    for (const gateway of [first, second]) expect(await status(gateway, secret)).toBe(200);
    await waitFor(async () => (await status(first, token.secret)) === 401 && (await status(second, token.secret)) === 401, "the grace period over on both");
    for (const gateway of [first, second]) expect(await status(gateway, secret)).toBe(200);
  });

  test.if(usePostgres)("a roll with no grace period is refused by both instances, their caches warm", async () => {
    const { seed, database, first, second } = two.current;
    const user = await seed.user();
    const token = await seed.token({ userId: user.id });
    expect(await status(first, token.secret)).toBe(200);
    expect(await status(second, token.secret)).toBe(200);
    const { secret } = await rollToken(database.handle.db, cliOperator, { id: token.row.id, graceSeconds: 0 });
    await waitFor(async () => (await status(first, token.secret)) === 401 && (await status(second, token.secret)) === 401, "the old secret refused on both");
    for (const gateway of [first, second]) expect(await status(gateway, secret)).toBe(200);
  });
});
