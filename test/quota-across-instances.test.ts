import { describe, expect, test } from "bun:test";
import { quotaLeases, requestLogs, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { usePostgres } from "./helpers/fresh-database";
import { meteredChat, seedMeteredModel } from "./helpers/metered-model";
import { twoGatewaysForBlock } from "./helpers/two-gateways";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const gateways = twoGatewaysForBlock();

describe("quota shared by two instances on one Postgres", () => {
  test.if(usePostgres)(
    "concurrent load on both instances never spends past the token's quota, and the quota is used up",
    async () => {
      const { database, first, second, seed, upstream } = gateways.current;
      const user = await seed.user();
      // Prompts are free, completions cost 1 micro-USD a token: each call costs exactly its 1000-token bound.
      await seedMeteredModel(seed, upstream);
      const token = await seed.token({ userId: user.id, quotaLimit: 10 * 1000 });
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, index) => meteredChat(index % 2 === 0 ? first : second, token.secret)),
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
