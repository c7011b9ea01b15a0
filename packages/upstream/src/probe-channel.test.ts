import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "../../../test/helpers/fake-anthropic-upstream";
import { LOCATION_SECRET, startFakeHostileUpstream } from "../../../test/helpers/fake-hostile-upstream";
import { type FreshDatabase, freshDatabase } from "../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";
import { nextChannelId } from "../../../test/helpers/next-channel-id";
import { channels } from "@tollgate/db";
import { channelKeyBinding, createSecretBox } from "@tollgate/shared";
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
    const secretBox = await createSecretBox("test-secret-for-tollgate-suite");
    const channel = async (apiKey: string) => {
      const id = await nextChannelId(database.handle.db);
      const values = { id, name: "fake", type: "anthropic", baseUrl: anthropic.url, apiKeyEncrypted: await secretBox.encrypt(apiKey, channelKeyBinding(id)), models: ["claude"] };
      const [row] = await database.handle.db.insert(channels).values(values).returning();
      return row!;
    };
    const good = await channel("sk-ant-right");
    const bad = await channel("sk-ant-wrong-key");
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

  test("an upstream that redirects fails the probe, and the key never reaches the host it names", async () => {
    const hostile = await startFakeHostileUpstream();
    try {
      hostile.setMode({ kind: "redirect", status: 307 });
      const secretBox = await createSecretBox("test-secret-for-tollgate-suite");
      const id = await nextChannelId(database.handle.db);
      const values = { id, name: "hostile", type: "anthropic", baseUrl: hostile.origin, apiKeyEncrypted: await secretBox.encrypt("sk-ant-probed-key", channelKeyBinding(id)), models: ["claude"] };
      const [row] = await database.handle.db.insert(channels).values(values).returning();
      const result = await createChannelProber(database.handle.db, secretBox)(row!.id);
      expect(result.ok).toBe(false);
      expect(result.error).toContain("redirect");
      expect(result.error).not.toContain(LOCATION_SECRET);
      expect(hostile.requests.at(-1)!.headers["x-api-key"]).toBe("sk-ant-probed-key");
      expect(hostile.recorder.requests).toEqual([]);
    } finally {
      await hostile.close();
    }
  });
});
