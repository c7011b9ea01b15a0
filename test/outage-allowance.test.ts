import { describe, expect, test } from "bun:test";
import { requestLogs, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { gatewayBehindProxyForBlock } from "./helpers/database-behind-proxy";
import { usePostgres } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Needs a network path to the database that can be cut: Postgres only (embedded PGlite has none).

/** 1 USD quota; the outage allowance is 2% of it (20,000 micro-USD), under the 1 USD cap. */
const QUOTA = 1_000_000;
const ALLOWANCE = 20_000;
/** Each call costs 4,000 micro-USD (1,000 + 3,000 tokens at 1 USD per million) and holds a little more. */
const CALL_COST = 4_000;
const MAX_TOKENS = 3_000;

const outage = gatewayBehindProxyForBlock({
  // Slices of 1% of the quota: a few calls use up the slice held when the database goes.
  quotaLeases: { ttlMs: 60_000, heartbeatMs: 60_000, idleReturnMs: 60_000, chunkFraction: 0.01 },
  outageAllowance: { share: ALLOWANCE / QUOTA, capMicroUsd: 1_000_000 },
});

async function logsOf(tokenId: number) {
  return outage.current.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId));
}

describe("the outage allowance", () => {
  test.if(usePostgres)(
    "a token with a quota is served through a database outage until its allowance is spent, then refused 503; once the database returns its used quota is the exact sum of its log rows",
    async () => {
      const { database, gateway, proxy, seed, upstream, userId } = outage.current;
      const chat = (key: string) => outage.current.chat(key, MAX_TOKENS);
      upstream.setDefault({ kind: "ok", content: "ok", promptTokens: 1_000, completionTokens: 3_000 });
      const token = await seed.token({ userId, quotaLimit: QUOTA });
      expect((await chat(token.secret)).status).toBe(200);
      await gateway.services.usage.flush();
      const { ledger } = gateway.services;
      const sliceLeft = ledger.unspentLease(token.row.id);

      proxy.down();
      const statuses: number[] = [];
      for (let call = 0; call < 100; call++) {
        const response = await chat(token.secret);
        statuses.push(response.status);
        if (response.status !== 200) {
          expect(response.status).toBe(503);
          expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
          const body = (await response.json()) as { error: { code: string; message: string } };
          expect(body.error.code).toBe("database_unavailable");
          expect(body.error.message).toContain("allowance");
          break;
        }
      }
      const served = statuses.filter((status) => status === 200).length;
      const spentInOutage = served * CALL_COST;
      // Served beyond the slice it held (today's code refuses as soon as the slice is spent)...
      expect(spentInOutage).toBeGreaterThan(sliceLeft);
      // ...and no further than the slice plus the allowance (every call's cost is within its hold: no overrun).
      expect(spentInOutage).toBeLessThanOrEqual(sliceLeft + ALLOWANCE);
      expect(ledger.outage.used(token.row.id)).toBeLessThanOrEqual(ALLOWANCE);
      expect(ledger.outage.used(token.row.id)).toBeGreaterThan(ALLOWANCE - 2 * CALL_COST);
      expect(statuses.at(-1)).toBe(503);
      // Refused at once while the allowance is spent, and nothing stays held by the refused call.
      expect((await chat(token.secret)).status).toBe(503);
      expect(ledger.heldFor(token.row.id)).toBe(0);

      proxy.up();
      await waitFor(async () => (await chat(token.secret)).status === 200, "a new lease once the database is back", 30_000);
      expect(ledger.outage.used(token.row.id)).toBe(0);
      await waitFor(() => gateway.services.usage.queueDepth === 0, "the usage of the outage to be written", 30_000);
      await gateway.services.usage.flush();
      const logs = await logsOf(token.row.id);
      const [row] = await database.handle.db.select().from(tokens).where(eq(tokens.id, token.row.id));
      expect(row!.usedQuota).toBe(logs.reduce((sum, log) => sum + log.cost, 0));
      // The warm-up call, the calls served in the outage and the one after it, each billed in full.
      expect(logs.filter((log) => log.status === 200)).toHaveLength(served + 2);
      expect(row!.usedQuota).toBe((served + 2) * CALL_COST);
    },
    SETUP_TIMEOUT_MS,
  );

  test.if(usePostgres)("the allowance is the smaller of the share of the limit and the cap", () => {
    const allowances = outage.current.gateway.services.ledger.outage;
    expect(allowances.allowanceFor(QUOTA)).toBe(ALLOWANCE);
    expect(allowances.allowanceFor(500 * QUOTA)).toBe(1_000_000);
  });
});
