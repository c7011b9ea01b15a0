/**
 * Calls served to quota-limited tokens through a database outage: one gateway (in process) reaches Postgres
 * through a TCP proxy, WORKERS clients call for OUTAGE_MS with the proxy down, spread over TOKENS tokens of
 * QUOTA_USD each; prints the answers by status, the spend made during the outage, and, once the database is
 * back and the usage written, whether every token's used quota is the sum of its log rows. Each client waits
 * PACE_MS (100) between calls.
 * `DATABASE_URL=postgres://... bun bench/outage-allowance.ts` (Postgres only: PGlite has no connection to cut).
 */
import { openDatabase, requestLogs, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { startFakeOpenAIUpstream } from "../test/helpers/fake-openai-upstream";
import { freshDatabase } from "../test/helpers/fresh-database";
import { seeder, startGateway, waitFor } from "../test/helpers/gateway-fixture";
import { startTcpProxy } from "../test/helpers/tcp-proxy";

if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL (Postgres) is required");
const outageMs = Number(process.env.OUTAGE_MS ?? 30_000);
const workers = Number(process.env.WORKERS ?? 8);
const tokenCount = Number(process.env.TOKENS ?? 4);
const paceMs = Number(process.env.PACE_MS ?? 100);
const quotaMicros = Math.round(Number(process.env.QUOTA_USD ?? 1) * 1_000_000);

const database = await freshDatabase();
const target = new URL(database.url!);
const proxy = startTcpProxy(target.hostname, Number(target.port || 5432));
const viaProxy = new URL(database.url!);
viaProxy.port = String(proxy.port);
const proxied = await openDatabase({ databaseUrl: viaProxy.toString(), poolSize: 3 });
const upstream = await startFakeOpenAIUpstream();
// About 1,000 micro-USD per call at gpt-4o's list price (2.5 / 10 USD per million).
upstream.setDefault({ kind: "ok", content: "ok", promptTokens: 200, completionTokens: 50 });
const gateway = await startGateway(proxied, { logRequests: false });
const seed = seeder(database.handle, gateway.secretBox, [gateway]);
const user = await seed.user();
await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o"] });
await seed.price("gpt-4o", 2.5, 10);
const keys = await Promise.all(Array.from({ length: tokenCount }, () => seed.token({ userId: user.id, quotaLimit: quotaMicros })));

const call = (secret: string) =>
  gateway.handle(
    new Request("http://bench/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_tokens: 64 }),
    }),
  );

for (const key of keys) await call(key.secret);
await gateway.services.usage.flush();
const usedBefore = new Map<number, number>();
for (const key of keys) usedBefore.set(key.row.id, (await seed.tokenRow(key.row.id)).usedQuota);

proxy.down();
const statuses = new Map<number, number>();
const deadline = performance.now() + outageMs;
await Promise.all(
  Array.from({ length: workers }, async (_, worker) => {
    for (let index = worker; performance.now() < deadline; index += workers) {
      const response = await call(keys[index % keys.length]!.secret);
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      // Clients pace themselves (PACE_MS between calls): a refused flood would only fill the log buffer.
      await Bun.sleep(paceMs);
    }
  }),
);
proxy.up();
await waitFor(() => !gateway.services.databaseCircuit.isOpen, "the database to be reachable again", 60_000);
await waitFor(() => gateway.services.usage.queueDepth === 0, "the outage's usage to be written", 60_000);
await gateway.services.usage.flush();

let exact = true;
let spentInOutage = 0;
for (const key of keys) {
  const logs = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, key.row.id));
  const [row] = await database.handle.db.select().from(tokens).where(eq(tokens.id, key.row.id));
  if (row!.usedQuota !== logs.reduce((sum, log) => sum + log.cost, 0)) exact = false;
  spentInOutage += row!.usedQuota - usedBefore.get(key.row.id)!;
}
const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
console.log(
  `outage of ${outageMs} ms, ${workers} clients over ${tokenCount} tokens of ${quotaMicros / 1_000_000} USD: ${total} calls, ` +
    [...statuses].map(([status, count]) => `${count} x ${status}`).join(", ") +
    `; spent during the outage ${(spentInOutage / 1_000_000).toFixed(6)} USD (${(spentInOutage / tokenCount / 1_000_000).toFixed(6)} per token); ` +
    `used quota = sum of log rows for every token: ${exact}`,
);
await gateway.stop();
await proxied.close();
proxy.close();
await upstream.close();
await database.drop();
