import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { settings, spendAlerts } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type HostileUpstream, startFakeHostileUpstream } from "./helpers/fake-hostile-upstream";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const SAFETY_BYTES = 64 * 1024 * 1024;

let stack: GatewayStack;
let hostile: HostileUpstream;

beforeAll(async () => {
  hostile = await startFakeHostileUpstream({ safetyBytes: SAFETY_BYTES });
  stack = await startGatewayStack({ gateway: { spendAlerts: { sweepMs: 60_000, retryBaseMs: 60_000, maxAttempts: 2, timeoutMs: 5000 } } });
  stack.upstream.setDefault({ kind: "ok", promptTokens: 10, completionTokens: 1000 });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["metered"] });
  await stack.seed.price("metered", 0, 1);
  const url = `${hostile.origin}/hooks/tollgate`;
  await stack.database.handle.db.insert(settings).values([
    { key: "spend_alert_webhook_url", value: url },
    { key: "spend_alert_thresholds", value: [100] },
  ]);
  await waitFor(async () => (await stack.gateway.services.settings.get()).spendAlertWebhookUrl === url, "the webhook setting to reach the gateway");
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
  await hostile?.close();
}, SETUP_TIMEOUT_MS);

/** Spends a token's whole quota, so that its 100% alert is raised and sent to the webhook. */
async function raiseAlert(): Promise<number> {
  const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1000 });
  const response = await stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "metered", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
  expect(response.status).toBe(200);
  await stack.gateway.services.usage.flush();
  return token.row.id;
}

const alertOf = async (tokenId: number) => (await stack.database.handle.db.select().from(spendAlerts).where(eq(spendAlerts.tokenId, tokenId)))[0];

describe("a hostile webhook receiver", () => {
  test("a redirect is not followed: the alert is not delivered, and the host it names receives nothing", async () => {
    hostile.setMode({ kind: "redirect", status: 307 });
    const tokenId = await raiseAlert();
    const alert = await waitFor(async () => {
      const row = await alertOf(tokenId);
      return row?.lastError ? row : null;
    }, "the delivery to fail");
    expect(alert.lastError).toBe("HTTP 307");
    expect(alert.deliveredAt).toBeNull();
    expect(hostile.recorder.requests).toEqual([]);
  });

  test("an answer that never ends is taken by its status: the alert is delivered and the body dropped unread", async () => {
    hostile.setMode({ kind: "endless-json" });
    const cancelled = hostile.waitForCancel();
    const tokenId = await raiseAlert();
    await waitFor(async () => (await alertOf(tokenId))?.deliveredAt, "the alert to be delivered");
    expect((await cancelled).bytes).toBeLessThan(SAFETY_BYTES);
  });
});
