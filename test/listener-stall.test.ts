import { describe, expect, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { gatewayBehindProxyForBlock } from "./helpers/database-behind-proxy";
import { usePostgres } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// A connection that stalls without closing needs a network path: Postgres only (on embedded PGlite the check is off).
/** The LISTEN query as it crosses the wire. */
const LISTEN = /listen "tollgate_invalidate"/i;

// The max age stays at its default (a minute): only the listener check can bring the revocation in time.
const outage = gatewayBehindProxyForBlock({ listenerCheckIntervalMs: 200 });

function models(key: string) {
  return outage.current.gateway.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${key}` } }));
}

describe("the LISTEN connection's self-check", () => {
  test.if(usePostgres)(
    "a LISTEN connection that stalls without closing is replaced, the caches are flushed and revocations are heard again",
    async () => {
      const { database, gateway, proxy, seed, userId } = outage.current;
      const token = await seed.token({ userId });
      expect((await models(token.secret)).status).toBe(200);
      expect(proxy.freeze(LISTEN)).toBe(1);
      // Its notification goes to the frozen connection and is lost.
      await database.handle.db.update(tokens).set({ status: "disabled" }).where(eq(tokens.id, token.row.id));
      await waitFor(async () => (await models(token.secret)).status === 401, "the revoked token to be refused", 20_000);
      expect(gateway.services.listenerCheck!.reconnects).toBeGreaterThanOrEqual(1);
      expect(proxy.countSent(LISTEN)).toBeGreaterThanOrEqual(2);

      // The new connection delivers: a change is heard through it.
      const other = await seed.token({ userId });
      expect((await models(other.secret)).status).toBe(200);
      await database.handle.db.update(tokens).set({ status: "disabled" }).where(eq(tokens.id, other.row.id));
      await waitFor(async () => (await models(other.secret)).status === 401, "a revocation heard on the new connection");
    },
    SETUP_TIMEOUT_MS,
  );
});
