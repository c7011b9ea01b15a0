import { describe, expect, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { usePostgres } from "./helpers/fresh-database";
import { meteredChat, seedMeteredModel } from "./helpers/metered-model";
import { twoGatewaysForBlock } from "./helpers/two-gateways";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const BOUNDARY = Date.parse("2026-12-01T00:00:00.000Z");
/** Both instances read this clock: they stand on the same side of the boundary, as synchronised hosts do. */
const clock = { now: BOUNDARY - 60_000 };

const gateways = twoGatewaysForBlock({ clock: () => clock.now });

describe("budget periods across two instances on one Postgres", () => {
  test.if(usePostgres)(
    "each period's budget is spent exactly once under load on both instances, and the reset gives the whole budget back at once",
    async () => {
      const { database, first, second, seed, upstream } = gateways.current;
      const user = await seed.user();
      await seedMeteredModel(seed, upstream);
      const token = await seed.token({ userId: user.id, quotaLimit: 10 * 1000, budgetPeriod: "monthly" });
      const burst = () => Promise.all(Array.from({ length: 30 }, (_, index) => meteredChat(index % 2 === 0 ? first : second, token.secret)));
      const before = (await burst()).map((response) => response.status);
      expect(before.filter((status) => status === 200)).toHaveLength(10);
      expect(before.filter((status) => status !== 200 && status !== 429)).toEqual([]);
      // Both instances still hold November's slices (spent) when December starts.
      clock.now = BOUNDARY;
      const after = (await burst()).map((response) => response.status);
      expect(after.filter((status) => status === 200)).toHaveLength(10);
      await first.services.usage.flush();
      await second.services.usage.flush();
      const [row] = await database.handle.db.select().from(tokens).where(eq(tokens.id, token.row.id));
      expect(row!.usedQuota).toBe(20_000);
      expect(row!.periodStart?.getTime()).toBe(BOUNDARY);
      expect(row!.periodUsed).toBe(10_000);
    },
    SETUP_TIMEOUT_MS,
  );
});
