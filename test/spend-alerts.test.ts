import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { settings, spendAlerts, teams } from "@tollgate/db";
import { WEBHOOK_SECRET_BINDING } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from "./helpers/fake-webhook-receiver";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { meteredChat, seedMeteredModel } from "./helpers/metered-model";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const SECRET = "whsec_test_0123456789abcdef";
const clock = { now: Date.parse("2026-11-26T12:00:00.000Z") };

let stack: GatewayStack;
let receiver: FakeWebhookReceiver;

beforeAll(async () => {
  receiver = startFakeWebhookReceiver();
  stack = await startGatewayStack({
    gateway: { clock: () => clock.now, spendAlerts: { sweepMs: 60_000, retryBaseMs: 20, maxAttempts: 4, timeoutMs: 5000 } },
  });
  await seedMeteredModel(stack.seed, stack.upstream);
  // As `alerts settings` writes them (packages/admin, tested with the CLI): the secret encrypted.
  await stack.database.handle.db.insert(settings).values([
    { key: "spend_alert_webhook_url", value: receiver.url },
    { key: "spend_alert_webhook_secret", value: await stack.gateway.secretBox.encrypt(SECRET, WEBHOOK_SECRET_BINDING) },
    { key: "spend_alert_thresholds", value: [50, 80, 100] },
  ]);
  await waitFor(async () => (await stack.gateway.services.settings.get()).spendAlertWebhookUrl === receiver.url, "the webhook setting to reach the gateway");
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
}, SETUP_TIMEOUT_MS);

/** Calls, then writes usage behind and waits until the alerts it raised are claimed and delivered. */
async function spend(key: string, calls: number) {
  for (let call = 0; call < calls; call++) expect((await meteredChat(stack.gateway, key)).status).toBe(200);
  await stack.gateway.services.usage.flush();
  await stack.gateway.services.spendAlerts.settled();
}

function alertRows(tokenId: number) {
  return stack.database.handle.db.select().from(spendAlerts).where(eq(spendAlerts.tokenId, tokenId)).orderBy(asc(spendAlerts.threshold), asc(spendAlerts.periodStart));
}

function bodiesFor(tokenId: number) {
  return receiver.received.map((delivery) => JSON.parse(delivery.body)).filter((body) => body.token?.id === tokenId);
}

describe("spend alerts", () => {
  test("a team's budget raises its own alerts, with the team and no user, once per threshold", async () => {
    const [team] = await stack.database.handle.db.insert(teams).values({ name: "alerting-team", budgetLimit: 2000, budgetPeriod: "monthly" }).returning();
    const token = await stack.seed.token({ userId: stack.userId, name: "team key", teamId: team!.id });
    await spend(token.secret, 1);
    const body = await waitFor(
      () => receiver.received.map((delivery) => JSON.parse(delivery.body)).find((item) => item.subject === "team" && item.team?.id === team!.id),
      "the team's alert",
    );
    expect(body).toMatchObject({
      subject: "team",
      token: null,
      user: null,
      team: { id: team!.id, name: "alerting-team" },
      period: "monthly",
      period_start: "2026-11-01T00:00:00.000Z",
      threshold: 50,
      spent_usd: "0.001000",
      limit_usd: "0.002000",
    });
    const rows = await stack.database.handle.db.select().from(spendAlerts).where(eq(spendAlerts.teamId, team!.id));
    expect(rows.map((row) => [row.subjectKind, row.threshold, row.userId])).toEqual([["team", 50, null]]);
  });

  test("each threshold of a quota is delivered once, signed, with the token, the user, the period, the spend and the limit", async () => {
    const token = await stack.seed.token({ userId: stack.userId, name: "ci", quotaLimit: 4000 });
    await spend(token.secret, 2);
    await waitFor(() => bodiesFor(token.row.id).length === 1, "the 50% alert");
    await spend(token.secret, 1);
    await spend(token.secret, 1);
    await waitFor(async () => (await alertRows(token.row.id)).every((row) => row.deliveredAt !== null) && bodiesFor(token.row.id).length === 3, "the 80% and 100% alerts");
    // More spend past 100% (the last call is billed in full) raises nothing new.
    await stack.gateway.services.usage.flush();
    await stack.gateway.services.spendAlerts.settled();
    const rows = await alertRows(token.row.id);
    expect(rows.map((row) => row.threshold)).toEqual([50, 80, 100]);
    const bodies = bodiesFor(token.row.id).sort((a, b) => a.threshold - b.threshold);
    expect(bodies).toHaveLength(3);
    expect(bodies[0]).toEqual({
      type: "spend_alert",
      id: `alert_${rows[0]!.id}`,
      subject: "token",
      token: { id: token.row.id, name: "ci" },
      user: { id: stack.userId, name: expect.any(String) },
      team: null,
      period: "none",
      period_start: null,
      period_end: null,
      threshold: 50,
      spent_usd: "0.002000",
      limit_usd: "0.004000",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(bodies[2]).toMatchObject({ threshold: 100, spent_usd: "0.004000" });
    for (const delivery of receiver.received) {
      const timestamp = delivery.headers["x-tollgate-timestamp"]!;
      const expected = createHmac("sha256", SECRET).update(`${timestamp}.${delivery.body}`).digest("hex");
      expect(delivery.headers["x-tollgate-signature"]).toBe(`sha256=${expected}`);
      expect(delivery.headers["content-type"]).toBe("application/json");
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    }
  });

  test("a receiver that fails gets the same alert again, with back-off, until it accepts it", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1000, alertThresholds: [100] });
    const before = receiver.received.length;
    receiver.failNext(2, 503);
    await spend(token.secret, 1);
    await waitFor(async () => (await alertRows(token.row.id))[0]?.deliveredAt, "the alert to be delivered after two refusals");
    const deliveries = receiver.received.slice(before).map((delivery) => JSON.parse(delivery.body));
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((body) => body.id)).size).toBe(1);
    const [row] = await alertRows(token.row.id);
    expect(row).toMatchObject({ attempts: 3, lastError: null, nextAttemptAt: null });
  });

  test("a periodic budget is alerted once per threshold in each period", async () => {
    clock.now = Date.parse("2026-11-26T23:00:00.000Z");
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1000, budgetPeriod: "daily", alertThresholds: [100] });
    await spend(token.secret, 1);
    clock.now = Date.parse("2026-11-27T00:00:00.000Z");
    await spend(token.secret, 1);
    await waitFor(async () => {
      const rows = await alertRows(token.row.id);
      return rows.length === 2 && rows.every((row) => row.deliveredAt !== null);
    }, "one alert in each day");
    const bodies = bodiesFor(token.row.id).sort((a, b) => a.period_start.localeCompare(b.period_start));
    expect(bodies.map((body) => [body.period, body.period_start, body.period_end, body.threshold])).toEqual([
      ["daily", "2026-11-26T00:00:00.000Z", "2026-11-27T00:00:00.000Z", 100],
      ["daily", "2026-11-27T00:00:00.000Z", "2026-11-28T00:00:00.000Z", 100],
    ]);
  });

  test("a user's budget raises alerts about the user, without a token", async () => {
    clock.now = Date.parse("2026-11-26T12:00:00.000Z");
    const user = await stack.seed.user({ name: "budgeted", budgetLimit: 2000, budgetPeriod: "monthly", alertThresholds: [50] });
    const token = await stack.seed.token({ userId: user.id });
    await spend(token.secret, 1);
    const body = await waitFor(
      () => receiver.received.map((delivery) => JSON.parse(delivery.body)).find((item) => item.subject === "user" && item.user.id === user.id),
      "the user's alert",
    );
    expect(body).toMatchObject({
      subject: "user",
      token: null,
      user: { id: user.id, name: "budgeted" },
      period: "monthly",
      period_start: "2026-11-01T00:00:00.000Z",
      period_end: "2026-12-01T00:00:00.000Z",
      threshold: 50,
      spent_usd: "0.001000",
      limit_usd: "0.002000",
    });
  });
});
