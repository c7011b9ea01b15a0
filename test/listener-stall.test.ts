import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DatabaseHandle, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, usePostgres } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import type { TcpProxy } from "./helpers/tcp-proxy";
import { type DatabaseBehindProxy, databaseBehindProxy } from "./helpers/database-behind-proxy";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// A connection that stalls without closing needs a network path: Postgres only (on embedded PGlite the check is off).
/** The LISTEN query as it crosses the wire. */
const LISTEN = /listen "tollgate_invalidate"/i;

let behind: DatabaseBehindProxy;
let database: FreshDatabase;
let proxy: TcpProxy;
let proxied: DatabaseHandle;
let upstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;

function models(key: string) {
  return gateway.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${key}` } }));
}

beforeAll(async () => {
  if (!usePostgres) return;
  behind = await databaseBehindProxy();
  ({ database, proxy, proxied } = behind);
  upstream = await startFakeOpenAIUpstream();
  // The max age stays at its default (a minute): only the listener check can bring the revocation in time.
  gateway = await startGateway(proxied, { listenerCheckIntervalMs: 200 });
  seed = seeder(database.handle, gateway.secretBox, [gateway]);
  userId = (await seed.user()).id;
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini"] });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (!usePostgres) return;
  await gateway?.stop();
  await upstream?.close();
  await behind?.close();
}, SETUP_TIMEOUT_MS);

describe("the LISTEN connection's self-check", () => {
  test.if(usePostgres)(
    "a LISTEN connection that stalls without closing is replaced, the caches are flushed and revocations are heard again",
    async () => {
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
