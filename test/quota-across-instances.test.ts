import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { quotaLeases, requestLogs, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase, usePostgres } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let first: GatewayUnderTest;
let second: GatewayUnderTest;

function chat(gateway: GatewayUnderTest, key: string) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "metered", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

beforeAll(async () => {
  if (!usePostgres) return;
  database = await freshDatabase();
  upstream = await startFakeOpenAIUpstream({ chunkDelayMs: 0 });
  upstream.setDefault({ kind: "ok", promptTokens: 10, completionTokens: 1000 });
  first = await startGateway(database.handle);
  second = await startGateway(await database.openAnother());
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (!usePostgres) return;
  await first?.stop();
  await second?.stop();
  await upstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("quota shared by two instances on one Postgres", () => {
  test.if(usePostgres)(
    "concurrent load on both instances never spends past the token's quota, and the quota is used up",
    async () => {
      const seed = seeder(database.handle, first.secretBox, [first, second]);
      const user = await seed.user();
      await seed.channel({ baseUrl: upstream.url, models: ["metered"] });
      // Prompts are free, completions cost 1 micro-USD a token: each call costs exactly its 1000-token bound.
      await seed.price("metered", 0, 1);
      const token = await seed.token({ userId: user.id, quotaLimit: 10 * 1000 });
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, index) => chat(index % 2 === 0 ? first : second, token.secret)),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      await first.services.usage.flush();
      await second.services.usage.flush();
      const [row] = await database.handle.db.select().from(tokens).where(eq(tokens.id, token.row.id));
      expect(row!.usedQuota).toBe(10_000);
      const logs = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token.row.id));
      expect(logs.filter((log) => log.status === 200)).toHaveLength(10);
      // Every slice was spent and written back: no lease keeps quota away from anyone.
      const leases = await database.handle.db.select().from(quotaLeases).where(eq(quotaLeases.subject, `token:${token.row.id}`));
      expect(leases.reduce((sum, lease) => sum + lease.amount, 0)).toBe(0);
    },
    SETUP_TIMEOUT_MS,
  );
});
