import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { channels, resealStoredSecrets, settings } from "@tollgate/db";
import { channelKeyBinding, createSecretBox, WEBHOOK_SECRET_BINDING } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { readServerEnvironment } from "../apps/server/src/env";
import { openStorage } from "../apps/server/src/open-storage";
import { seedDataFolder } from "./helpers/fresh-database";
import { type GatewayStack, startGatewayStack, TEST_SECRET, waitFor } from "./helpers/gateway-fixture";
import { sealWithVersionOne } from "./helpers/seal-version-one";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let tokenSecret: string;

beforeAll(async () => {
  stack = await startGatewayStack();
  stack.upstream.setDefault({ kind: "ok", promptTokens: 3, completionTokens: 2 });
  tokenSecret = (await stack.seed.token({ userId: stack.userId })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

function chat(model: string) {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${tokenSecret}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

async function storedKey(id: number): Promise<string> {
  const [row] = await stack.database.handle.db.select({ value: channels.apiKeyEncrypted }).from(channels).where(eq(channels.id, id));
  return row!.value;
}

describe("sealed secrets at rest", () => {
  test("v1 rows are re-sealed as v2 bound to their row, once, and the gateway still sends the key", async () => {
    const db = stack.database.handle.db;
    const channel = await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["old-format"], apiKey: "sk-sealed-by-v1-0001" });
    await db.update(channels).set({ apiKeyEncrypted: await sealWithVersionOne(TEST_SECRET, "sk-sealed-by-v1-0001") }).where(eq(channels.id, channel.id));
    await db.insert(settings).values({ key: "spend_alert_webhook_secret", value: await sealWithVersionOne(TEST_SECRET, "whsec_sealed_by_v1_0123") });

    // Two instances starting at once: each old value is replaced exactly once.
    const outcomes = await Promise.all([resealStoredSecrets(db, stack.gateway.secretBox), resealStoredSecrets(db, stack.gateway.secretBox)]);
    expect(outcomes.reduce((sum, outcome) => sum + outcome.channels, 0)).toBe(1);
    expect(outcomes.reduce((sum, outcome) => sum + outcome.settings, 0)).toBe(1);
    const sealed = await storedKey(channel.id);
    expect(sealed).toStartWith("v2:");
    expect(await stack.gateway.secretBox.decrypt(sealed, channelKeyBinding(channel.id))).toBe("sk-sealed-by-v1-0001");
    const [webhook] = await db.select().from(settings).where(eq(settings.key, "spend_alert_webhook_secret"));
    expect(String(webhook!.value)).toStartWith("v2:");
    expect(await stack.gateway.secretBox.decrypt(String(webhook!.value), WEBHOOK_SECRET_BINDING)).toBe("whsec_sealed_by_v1_0123");
    expect(await resealStoredSecrets(db, stack.gateway.secretBox)).toEqual({ channels: 0, settings: 0, unreadable: 0 });

    await waitFor(async () => {
      const catalog = await stack.gateway.services.catalog.get();
      return catalog.channelsByModel.get("old-format")?.some((routable) => routable.id === channel.id && routable.apiKey === "sk-sealed-by-v1-0001");
    }, "the re-sealed channel in the catalog");
    expect((await chat("old-format")).status).toBe(200);
    expect(stack.upstream.requests.at(-1)!.headers.authorization).toBe("Bearer sk-sealed-by-v1-0001");
  });

  test("a value written with another TOLLGATE_SECRET is left as it is", async () => {
    const db = stack.database.handle.db;
    const channel = await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["foreign"] });
    const foreign = await sealWithVersionOne("another-secret-of-enough-length", "sk-foreign");
    await db.update(channels).set({ apiKeyEncrypted: foreign }).where(eq(channels.id, channel.id));
    expect(await resealStoredSecrets(db, stack.gateway.secretBox)).toEqual({ channels: 0, settings: 0, unreadable: 1 });
    expect(await storedKey(channel.id)).toBe(foreign);
    await db.delete(channels).where(eq(channels.id, channel.id));
  });

  test("sealed keys swapped between two channel rows open in neither, and neither key reaches the other's upstream", async () => {
    const db = stack.database.handle.db;
    const first = await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["swap-a"], apiKey: "sk-belongs-to-a-0001" });
    const second = await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["swap-b"], apiKey: "sk-belongs-to-b-0002" });
    const [sealedFirst, sealedSecond] = [await storedKey(first.id), await storedKey(second.id)];
    await db.update(channels).set({ apiKeyEncrypted: sealedSecond }).where(eq(channels.id, first.id));
    await db.update(channels).set({ apiKeyEncrypted: sealedFirst }).where(eq(channels.id, second.id));
    await expect(stack.gateway.secretBox.decrypt(sealedSecond, channelKeyBinding(first.id))).rejects.toThrow();

    await waitFor(async () => {
      const catalog = await stack.gateway.services.catalog.get();
      return !catalog.channelsByModel.has("swap-a") && !catalog.channelsByModel.has("swap-b");
    }, "both swapped channels out of the catalog");
    const before = stack.upstream.requests.length;
    expect((await chat("swap-a")).status).not.toBe(200);
    expect((await chat("swap-b")).status).not.toBe(200);
    expect(stack.upstream.requests.length).toBe(before);
  });
});

describe("the server's start", () => {
  test("opening the storage re-seals the v1 rows an older version left", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-reseal-"));
    // An embedded folder whose database exists already (its creation is not what is tested here).
    await seedDataFolder(dataDir, true);
    try {
      const environment = readServerEnvironment("all", { TOLLGATE_DATA_DIR: dataDir, TOLLGATE_SECRET: TEST_SECRET });
      const first = await openStorage(environment, "all");
      expect(first.resealed).toEqual({ channels: 0, settings: 0, unreadable: 0 });
      const [row] = await first.database.db
        .insert(channels)
        .values({ name: "old", baseUrl: "https://api.example.com/v1", apiKeyEncrypted: await sealWithVersionOne(TEST_SECRET, "sk-left-by-v1"), models: ["m"] })
        .returning({ id: channels.id });
      await first.database.close();
      first.releaseDataDir();

      const second = await openStorage(environment, "all");
      expect(second.resealed).toEqual({ channels: 1, settings: 0, unreadable: 0 });
      const [stored] = await second.database.db.select({ value: channels.apiKeyEncrypted }).from(channels).where(eq(channels.id, row!.id));
      expect(stored!.value).toStartWith("v2:");
      expect(await (await createSecretBox(TEST_SECRET)).decrypt(stored!.value, channelKeyBinding(row!.id))).toBe("sk-left-by-v1");
      await second.database.close();
      second.releaseDataDir();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, SETUP_TIMEOUT_MS);
});
