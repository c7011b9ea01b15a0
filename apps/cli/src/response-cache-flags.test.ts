import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createToken, updateToken } from "@tollgate/admin";
import { modelPrices } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

let harness: CliHarness;
let aliceId: number;

beforeAll(async () => {
  harness = await createCliHarness();
  aliceId = (await harness.runJson("user", "create", "--name", "alice")).id as number;
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

const tokenRow = (id: number) => harness.tokenRow(id);

describe("token --cache-ttl and --cache-scope", () => {
  test("a token is created without caching, and --cache-ttl turns it on with the owner's scope", async () => {
    const plain = await harness.runJson<{ id: number; cacheTtlSeconds: number | null; cacheScope: string }>("token", "create", "--user", "alice", "--name", "plain");
    expect(plain).toMatchObject({ cacheTtlSeconds: null, cacheScope: "user" });
    const cached = await harness.runJson<{ id: number }>("token", "create", "--user", "alice", "--name", "cached", "--cache-ttl", "600");
    expect(await tokenRow(cached.id)).toMatchObject({ responseCacheTtlSeconds: 600, responseCacheScope: "user" });
    expect((await harness.run("token", "show", String(cached.id))).stdout).toContain("600 s, shared by user");
  });

  test("token update sets the group scope and turns the cache off again", async () => {
    const created = await harness.runJson<{ id: number }>("token", "create", "--user", "alice", "--name", "shared", "--cache-ttl", "60");
    await harness.run("token", "update", String(created.id), "--cache-scope", "group", "--cache-ttl", "120");
    expect(await tokenRow(created.id)).toMatchObject({ responseCacheTtlSeconds: 120, responseCacheScope: "group" });
    await harness.run("token", "update", String(created.id), "--cache-ttl", "off");
    expect((await tokenRow(created.id)).responseCacheTtlSeconds).toBeNull();
  });

  test("a TTL that is not a whole number of seconds within a week, or an unknown scope, is refused naming the flag", async () => {
    const base = ["token", "create", "--user", "alice", "--name", "bad"];
    await harness.expectRejected([...base, "--cache-ttl", "0"], "--cache-ttl");
    await harness.expectRejected([...base, "--cache-ttl", "604801"], "--cache-ttl");
    await harness.expectRejected([...base, "--cache-scope", "everyone"], "--cache-scope");
  });

  test("an owner may cache their own token's calls but not share them with the group", async () => {
    const owner = { role: "user" as const, id: aliceId, group: "default" };
    const { token } = await createToken(harness.context.db, owner, { name: "own", responseCacheTtlSeconds: 30, responseCacheScope: "token" });
    expect(token).toMatchObject({ responseCacheTtlSeconds: 30, responseCacheScope: "token" });
    const refusal = (attempt: Promise<unknown>) => attempt.then(() => "accepted", (error: unknown) => String(error));
    expect(await refusal(createToken(harness.context.db, owner, { name: "wide", responseCacheTtlSeconds: 30, responseCacheScope: "group" }))).toContain(
      "Only an administrator can share",
    );
    expect(await refusal(updateToken(harness.context.db, owner, { id: token.id, responseCacheScope: "group" }))).toContain("Only an administrator can share");
  });
});

describe("model price --cache-hit", () => {
  test("sets the price of an answer served from the response cache, 0 when left out", async () => {
    const priced = await harness.runJson<{ cacheHitUsd: string }>("model", "price", "--model", "cached-model", "--input", "1", "--output", "2", "--cache-hit", "0.0005");
    expect(priced.cacheHitUsd).toBe("0.000500");
    const [row] = await harness.context.db.select().from(modelPrices).where(eq(modelPrices.model, "cached-model"));
    expect(row!.cacheHitPrice).toBe(500);
    await harness.run("model", "price", "--model", "cached-model", "--input", "1", "--output", "2");
    const [reset] = await harness.context.db.select().from(modelPrices).where(eq(modelPrices.model, "cached-model"));
    expect(reset!.cacheHitPrice).toBe(0);
  });
});
