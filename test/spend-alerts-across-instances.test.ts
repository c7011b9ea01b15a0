import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { settings, spendAlerts } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from "./helpers/fake-webhook-receiver";
import { waitFor } from "./helpers/gateway-fixture";
import { meteredChat, seedMeteredModel } from "./helpers/metered-model";
import { startTwoGateways, type TwoGateways } from "./helpers/two-gateways";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { usePostgres } from "./helpers/fresh-database";

let gateways: TwoGateways;
let receiver: FakeWebhookReceiver;

beforeAll(async () => {
  if (!usePostgres) return;
  receiver = startFakeWebhookReceiver();
  gateways = await startTwoGateways();
  await gateways.database.handle.db.insert(settings).values([
    { key: "spend_alert_webhook_url", value: receiver.url },
    { key: "spend_alert_thresholds", value: [50, 80, 100] },
  ]);
  for (const gateway of [gateways.first, gateways.second]) {
    await waitFor(async () => (await gateway.services.settings.get()).spendAlertWebhookUrl === receiver.url, "the webhook setting on both instances");
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (!usePostgres) return;
  await gateways?.stop();
  await receiver?.close();
}, SETUP_TIMEOUT_MS);

describe("spend alerts across two instances on one Postgres", () => {
  test.if(usePostgres)(
    "each threshold is delivered once even though both instances see the spend that crossed it",
    async () => {
      const { first, second, seed, database } = gateways;
      const user = await seed.user();
      await seedMeteredModel(seed, gateways.upstream);
      const token = await seed.token({ userId: user.id, quotaLimit: 10 * 1000 });
      for (let round = 0; round < 5; round++) {
        // Both instances spend in every round, and both write it behind: each sees the total the other moved.
        expect((await meteredChat(first, token.secret)).status).toBe(200);
        expect((await meteredChat(second, token.secret)).status).toBe(200);
        await Promise.all([first.services.usage.flush(), second.services.usage.flush()]);
      }
      await Promise.all([first.services.usage.flush(), second.services.usage.flush()]);
      await Promise.all([first.services.spendAlerts.settled(), second.services.spendAlerts.settled()]);
      const rows = await waitFor(async () => {
        const found = await database.handle.db.select().from(spendAlerts).where(eq(spendAlerts.tokenId, token.row.id));
        return found.length === 3 && found.every((row) => row.deliveredAt !== null) ? found : null;
      }, "three delivered alerts");
      expect(rows.map((row) => row.attempts)).toEqual([1, 1, 1]);
      const bodies = receiver.received.map((delivery) => JSON.parse(delivery.body)).filter((body) => body.token?.id === token.row.id);
      expect(bodies.map((body) => body.threshold).sort((a, b) => a - b)).toEqual([50, 80, 100]);
      // Unsigned without a secret.
      expect(receiver.received.every((delivery) => delivery.headers["x-tollgate-signature"] === undefined)).toBe(true);
    },
    SETUP_TIMEOUT_MS,
  );
});
