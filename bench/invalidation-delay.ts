/**
 * How long a revocation takes to be enforced: a warm token is disabled by SQL (as the console or CLI would)
 * and a second gateway instance is polled until it answers 401. Prints p50/p99/max over the rounds.
 * Postgres: `DATABASE_URL=postgres://... bun bench/invalidation-delay.ts` (two instances, one database);
 * without DATABASE_URL it runs one instance on embedded PGlite.
 */
import { tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { freshDatabase } from "../test/helpers/fresh-database";
import { seeder, startGateway } from "../test/helpers/gateway-fixture";

const rounds = Number(process.env.ROUNDS ?? 50);
const database = await freshDatabase();
const writer = database.handle;
const reader = process.env.DATABASE_URL ? await database.openAnother() : database.handle;
const gateway = await startGateway(reader);
const seed = seeder(writer, gateway.secretBox);
const user = await seed.user();
const delays: number[] = [];

const status = async (key: string) =>
  (await gateway.handle(new Request("http://bench/v1/models", { headers: { authorization: `Bearer ${key}` } }))).status;

for (let round = 0; round < rounds; round++) {
  const token = await seed.token({ userId: user.id });
  if ((await status(token.secret)) !== 200) throw new Error("token should work before the change");
  const started = performance.now();
  await writer.db.update(tokens).set({ status: "disabled" }).where(eq(tokens.id, token.row.id));
  while ((await status(token.secret)) !== 401) await Bun.sleep(0);
  delays.push(performance.now() - started);
}

delays.sort((a, b) => a - b);
const at = (quantile: number) => delays[Math.min(delays.length - 1, Math.floor(quantile * delays.length))]!.toFixed(2);
console.log(
  `invalidation delay (${process.env.DATABASE_URL ? "postgres, second instance" : "embedded PGlite"}, ${rounds} rounds, ` +
    `from the UPDATE's start to the first 401): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
);
await gateway.stop();
await database.drop();
process.exit(0);
