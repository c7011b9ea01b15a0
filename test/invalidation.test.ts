import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCommand } from "@tollgate/cli/run-command";
import { generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { sql } from "drizzle-orm";
import type { FakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, usePostgres } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, TEST_SECRET, waitFor, type GatewayStack, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const cliEntry = join(import.meta.dir, "..", "apps", "cli", "src", "index.ts");

let stack: GatewayStack;
let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let first: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;

function models(gateway: GatewayUnderTest, key: string) {
  return gateway.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${key}` } }));
}

function chat(gateway: GatewayUnderTest, key: string, model: string) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

beforeAll(async () => {
  stack = await startGatewayStack({ user: { name: "owner" } });
  ({ database, upstream, gateway: first, seed, userId } = stack);
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini"] });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("cache invalidation through LISTEN/NOTIFY", () => {
  test("a token disabled by the CLI is refused by a warm gateway", async () => {
    const token = await seed.token({ userId });
    expect((await models(first, token.secret)).status).toBe(200);
    const result = await runCommand(["token", "disable", String(token.row.id)], { db: database.handle.db, secretBox: first.secretBox });
    expect(result.exitCode).toBe(0);
    await waitFor(async () => (await models(first, token.secret)).status === 401, "the disable to reach the cache");
  });

  test("a token's own insert notification, heard after the token is in use, does not evict it; a cached absence is forgotten", async () => {
    const inUse = await seed.token({ userId });
    const hash = hashTokenSecret(inUse.secret);
    await waitFor(async () => (await models(first, inUse.secret)).status === 200 && first.services.tokens.peek(hash), "the token in the cache");
    // A key tried before its row exists is cached as absent: the insert must clear that.
    const early = generateTokenSecret();
    expect((await models(first, early)).status).toBe(401);
    // The insert notifications, as the trigger sends them, arriving late (after the first call cached the token).
    for (const [id, keyHash] of [[inUse.row.id, hash], [inUse.row.id + 1000, hashTokenSecret(early)]] as const) {
      const payload = JSON.stringify({ table: "tokens", op: "insert", kind: "change", id, key_hash: keyHash });
      await database.handle.db.execute(sql`select pg_notify('tollgate_invalidate', ${payload})`);
    }
    // Notifications are delivered in order: once a later disable is heard, so were the inserts.
    const marker = await seed.token({ userId });
    expect((await models(first, marker.secret)).status).toBe(200);
    await runCommand(["token", "disable", String(marker.row.id)], { db: database.handle.db, secretBox: first.secretBox });
    await waitFor(async () => (await models(first, marker.secret)).status === 401, "the marker's disable to reach the cache");
    expect(first.services.tokens.peek(hash)).not.toBeUndefined();
    expect(first.services.tokens.peek(hashTokenSecret(early))).toBeUndefined();
  });

  test("a channel added by the CLI is routable without a restart, and disabling it is seen", async () => {
    const token = await seed.token({ userId });
    expect((await chat(first, token.secret, "fresh-model")).status).toBe(404);
    const added = await runCommand(
      ["channel", "add", "--name", "late", "--type", "openai-compatible", "--base-url", upstream.url, "--key", "sk-late", "--models", "fresh-model", "--json"],
      { db: database.handle.db, secretBox: first.secretBox },
    );
    expect(added.exitCode).toBe(0);
    await waitFor(async () => (await chat(first, token.secret, "fresh-model")).status === 200, "the new channel");
    const channelId = JSON.parse(added.stdout).id as number;
    await runCommand(["channel", "disable", String(channelId)], { db: database.handle.db, secretBox: first.secretBox });
    await waitFor(async () => (await chat(first, token.secret, "fresh-model")).status === 503, "the disabled channel");
  });

  test.if(usePostgres)(
    "a second instance on the same Postgres refuses a token after the CLI process disables it",
    async () => {
      const secondHandle = await database.openAnother();
      const second = await startGateway(secondHandle);
      try {
        const token = await seed.token({ userId });
        expect((await models(second, token.secret)).status).toBe(200);
        expect((await models(first, token.secret)).status).toBe(200);
        const cli = Bun.spawn([process.execPath, cliEntry, "token", "disable", String(token.row.id)], {
          env: { ...process.env, DATABASE_URL: database.url, TOLLGATE_SECRET: TEST_SECRET },
          stdout: "pipe",
          stderr: "pipe",
        });
        expect(await cli.exited).toBe(0);
        await waitFor(async () => (await models(second, token.secret)).status === 401, "instance two to see the disable");
        await waitFor(async () => (await models(first, token.secret)).status === 401, "instance one to see the disable");
        // The cache was warm: the refusal came from the eviction, and the next load read the new status.
        const body = (await (await models(second, token.secret)).json()) as { error: { code: string } };
        expect(body.error.code).toBe("token_disabled");
      } finally {
        await second.stop();
      }
    },
    SETUP_TIMEOUT_MS,
  );

  test.if(usePostgres)("a reconnecting listener flushes every cache", async () => {
    const token = await seed.token({ userId });
    expect((await models(first, token.secret)).status).toBe(200);
    expect(first.services.tokens.size).toBeGreaterThan(0);
    // Kill the LISTEN connection from the server side; postgres.js reconnects and the gateway flushes.
    await database.handle.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%'`,
    );
    await waitFor(() => first.services.tokens.size === 0, "the cache flush after reconnect");
    expect((await models(first, token.secret)).status).toBe(200);
  });
});
