import { describe, expect, test } from "bun:test";
import { requestLogs, resultRows, tokens } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { gatewayBehindProxyForBlock } from "./helpers/database-behind-proxy";
import { usePostgres } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const outage = gatewayBehindProxyForBlock();

/** Every call of the token has its request-log row, and the token's spend is their sum: nothing lost or doubled. */
async function expectWrittenOnce(tokenId: number, calls: number): Promise<void> {
  const { db } = outage.current.database.handle;
  const logs = await db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId));
  expect(logs).toHaveLength(calls);
  const [row] = await db.select().from(tokens).where(eq(tokens.id, tokenId));
  expect(row!.usedQuota).toBe(logs.reduce((sum, log) => sum + log.cost, 0));
}

describe("a database outage", () => {
  test.if(usePostgres)(
    "cached tokens keep working, usage is buffered and written after the database returns, and caches are flushed on reconnect",
    async () => {
      const { database, gateway, proxy, seed, userId, chat } = outage.current;
      const kept = await seed.token({ userId });
      const revoked = await seed.token({ userId });
      expect((await chat(kept.secret)).status).toBe(200);
      expect((await chat(revoked.secret)).status).toBe(200);
      await gateway.services.usage.flush();

      proxy.down();
      for (let index = 0; index < 5; index++) expect((await chat(kept.secret)).status).toBe(200);
      expect(gateway.services.usage.queueDepth).toBe(5);
      expect((await gateway.handle(new Request("http://gateway.test/readyz"))).status).toBe(503);
      // Revoked while this instance cannot hear it: the NOTIFY is lost, so only the flush on reconnect can save us.
      await database.handle.db.update(tokens).set({ status: "disabled" }).where(eq(tokens.id, revoked.row.id));

      proxy.up();
      await waitFor(() => gateway.services.usage.queueDepth === 0, "the buffered usage to be written", 30_000);
      await expectWrittenOnce(kept.row.id, 6);
      await waitFor(async () => (await chat(revoked.secret)).status === 401, "the revoked token to be refused after reconnect", 30_000);
      await waitFor(
        async () => (await gateway.handle(new Request("http://gateway.test/readyz"))).status === 200,
        "readiness after the database returned",
        30_000,
      );
    },
    SETUP_TIMEOUT_MS,
  );

  test.if(usePostgres)(
    "every connection killed by the server (pg_terminate_backend): calls keep being served, usage is written once, revocations are heard again",
    async () => {
      const { database, gateway, seed, userId, chat } = outage.current;
      const token = await seed.token({ userId });
      expect((await chat(token.secret)).status).toBe(200);
      await gateway.services.usage.flush();

      const killed = await database.handle.db.execute(
        sql`select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      expect(resultRows(killed).length).toBeGreaterThan(0);
      const answers = await Promise.all(Array.from({ length: 5 }, () => chat(token.secret)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);

      await waitFor(() => gateway.services.usage.queueDepth === 0, "the usage to be written after the reconnect", 30_000);
      await waitFor(
        async () => (await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token.row.id))).length >= 6,
        "the six request logs",
        30_000,
      );
      await expectWrittenOnce(token.row.id, 6);

      // The LISTEN connection was killed too: once it is back, a revocation reaches this instance.
      await waitFor(
        async () => {
          await database.handle.db.update(tokens).set({ status: "disabled" }).where(eq(tokens.id, token.row.id));
          return (await chat(token.secret)).status === 401;
        },
        "the revocation to be enforced after the listener reconnected",
        30_000,
      );
    },
    SETUP_TIMEOUT_MS,
  );
});
