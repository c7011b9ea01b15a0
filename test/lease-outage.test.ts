import { describe, expect, test } from "bun:test";
import { gatewayBehindProxyForBlock } from "./helpers/database-behind-proxy";
import { usePostgres } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Needs a network path to the database that can be cut: Postgres only (embedded PGlite has none).

const outage = gatewayBehindProxyForBlock({
  // Slices of 1% of the quota (at least what the request needs): a large request needs a new lease.
  quotaLeases: { ttlMs: 60_000, heartbeatMs: 60_000, idleReturnMs: 60_000, chunkFraction: 0.01 },
  cacheMaxAgeMs: 200,
});

describe("quota leases during a database outage", () => {
  test.if(usePostgres)(
    "a request that fits the lease held is served; one that needs a new lease gets 503 with Retry-After, and so do the next ones without waiting on the database",
    async () => {
      const { gateway, proxy, seed, userId, chat } = outage.current;
      // At 1 USD per million tokens, a default request reserves about 4,200 micro-USD and a large one 500,000.
      const token = await seed.token({ userId, quotaLimit: 1_000_000 });
      expect((await chat(token.secret)).status).toBe(200);
      // An owner with a balance: a slice of 1% of 10 USD for the token, of 1% of 1 USD for the owner.
      const owner = await seed.user({ balance: 1_000_000, balanceUnlimited: false });
      const ownersToken = await seed.token({ userId: owner.id, quotaLimit: 10_000_000 });
      expect((await chat(ownersToken.secret)).status).toBe(200);
      await gateway.services.usage.flush();
      const revalidationsBefore = gateway.services.tokens.revalidations;

      proxy.down();
      expect((await chat(token.secret)).status).toBe(200);
      const refused = await chat(token.secret, 500_000);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await refused.json()) as { error: { code: string; type: string; message: string } };
      expect(body.error.code).toBe("database_unavailable");
      expect(body.error.type).toBe("server_error");
      // The database is now known to be away: further acquisitions are refused without a query.
      expect(gateway.services.databaseCircuit.isOpen).toBe(true);
      const next = await Promise.all([chat(token.secret, 500_000), chat(token.secret, 400_000), chat(token.secret, 300_000)]);
      expect(next.map((response) => response.status)).toEqual([503, 503, 503]);
      // Nothing stays held by the refused requests, and cached keys stay in service past their max age
      // (their re-validation fails and keeps them).
      await waitFor(
        async () => (await chat(token.secret)).status === 200 && gateway.services.tokens.revalidations > revalidationsBefore,
        "a re-validation attempted during the outage",
      );
      expect(gateway.services.ledger.heldFor(token.row.id)).toBe(0);
      expect((await chat(token.secret)).status).toBe(200);
      // The token's slice covers 50,000 and the owner's does not: the token's hold is given back with the 503.
      expect((await chat(ownersToken.secret, 50_000)).status).toBe(503);
      expect(gateway.services.ledger.heldFor(ownersToken.row.id)).toBe(0);
      expect((await chat(ownersToken.secret)).status).toBe(200);

      proxy.up();
      await waitFor(async () => (await chat(token.secret, 500_000)).status === 200, "a new lease once the database is back", 30_000);
      expect(gateway.services.databaseCircuit.isOpen).toBe(false);
    },
    SETUP_TIMEOUT_MS,
  );
});
