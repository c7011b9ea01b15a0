import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { modelPrices, requestLogs, usageHourly } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { freshDatabaseForBlock } from "./helpers/migration-test";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

describe("migration 0013 (prompt-cache classes)", () => {
  const database = freshDatabaseForBlock();

  test("rows written as before it (no cache-write columns) read back with no cache writes, no savings and cache prices at the input price", async () => {
    // The statements an instance still running the previous release writes, column for column.
    await database.current.handle.execute(`insert into model_prices (model, input_price, output_price, cached_input_price) values ('old-model', 3000000, 15000000, 300000)`);
    await database.current.handle.execute(
      `insert into request_logs (request_id, endpoint, model, prompt_tokens, completion_tokens, cached_tokens, cost, status, latency_ms) values ('req_old', 'chat.completions', 'old-model', 1100, 20, 1000, 900, 200, 5)`,
    );
    await database.current.handle.execute(
      `insert into usage_hourly (hour, user_id, token_id, model, requests, prompt_tokens, completion_tokens, cached_tokens, cost) values ('2026-11-01T10:00:00Z', 1, 1, 'old-model', 1, 1100, 20, 1000, 900)`,
    );
    const db = database.current.handle.db;
    const [price] = await db.select().from(modelPrices).where(eq(modelPrices.model, "old-model"));
    expect(price).toMatchObject({ cachedInputPrice: 300_000, cacheWritePrice: null, cacheWrite1hPrice: null });
    const [log] = await db.select().from(requestLogs).where(eq(requestLogs.requestId, "req_old"));
    expect(log).toMatchObject({ cachedTokens: 1000, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cacheSavings: 0, cost: 900 });
    const [rollup] = await db.select().from(usageHourly).where(eq(usageHourly.model, "old-model"));
    expect(rollup).toMatchObject({ cachedTokens: 1000, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cacheSavings: 0 });
  });

  test("savings may be negative: the columns are signed", async () => {
    await database.current.handle.db
      .insert(requestLogs)
      .values({ requestId: "req_negative", endpoint: "messages", model: "m", status: 200, latencyMs: 1, cacheWrite1hTokens: 10_000, cacheSavings: -30_000 });
    const [log] = await database.current.handle.db.select().from(requestLogs).where(eq(requestLogs.requestId, "req_negative"));
    expect(log).toMatchObject({ cacheWrite1hTokens: 10_000, cacheSavings: -30_000 });
  });
});
