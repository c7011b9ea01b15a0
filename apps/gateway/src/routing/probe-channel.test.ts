import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "../../../../test/helpers/fake-anthropic-upstream";
import { type FreshDatabase, freshDatabase } from "../../../../test/helpers/fresh-database";
import { seeder, TEST_SECRET } from "../../../../test/helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { createSecretBox } from "@tollgate/shared";
import { createChannelProber } from "./probe-channel";

let database: FreshDatabase;
let anthropic: FakeAnthropicUpstream;

beforeAll(async () => {
  database = await freshDatabase();
  anthropic = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-right" });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await anthropic?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("channel probe", () => {
  test("a channel of a translated type is probed through its own protocol", async () => {
    const secretBox = await createSecretBox(TEST_SECRET);
    const seed = seeder(database.handle, secretBox);
    const good = await seed.channel({ type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-right", models: ["claude"] });
    const bad = await seed.channel({ type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-wrong-key", models: ["claude"] });
    const probe = createChannelProber(database.handle.db, secretBox);
    const passed = await probe(good.id);
    expect(passed.ok).toBe(true);
    expect(anthropic.requests.at(-1)!.body).toMatchObject({ model: "claude", max_tokens: 1 });
    const failed = await probe(bad.id);
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("HTTP 401");
    expect(failed.error).not.toContain("sk-ant-wrong-key");
    expect(await probe(99_999)).toEqual({ ok: false, latencyMs: 0, error: "unknown channel" });
  });
});
