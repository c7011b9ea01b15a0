import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { settings } from "@tollgate/db";
import { type FreshDatabase, freshDatabase } from "../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";
import { SettingsCache } from "./settings-cache";

let database: FreshDatabase;

beforeAll(async () => {
  database = await freshDatabase();
}, SETUP_TIMEOUT_MS);

afterAll(() => database?.drop(), SETUP_TIMEOUT_MS);

describe("settings cache", () => {
  test("a load under way when a change is notified is not kept: the next get() reads the change", async () => {
    const cache = new SettingsCache(database.handle.db);
    const loading = cache.get();
    expect(loading).toBeInstanceOf(Promise);
    // The change is sent after the load (which reads the rows as they were), and its notification is heard
    // before the load's answer comes back.
    const changed = database.handle.db.insert(settings).values({ key: "reservation_default_max_tokens", value: 777 }).execute();
    cache.invalidate();
    await changed;
    await loading;
    const next = cache.get();
    expect(next).toBeInstanceOf(Promise);
    expect((await next).reservationDefaultMaxTokens).toBe(777);
    expect(cache.get()).toEqual({ reservationDefaultMaxTokens: 777, responsesRetentionDays: 30, spendAlertThresholds: [50, 80, 100], spendAlertWebhookUrl: "", requestLogRetentionDays: 90 });
  });

  test("a background refresh keeps the current settings in service and then replaces them", async () => {
    const cache = new SettingsCache(database.handle.db);
    const first = await cache.get();
    await database.handle.db.update(settings).set({ value: 1234 });
    const refreshing = cache.refresh();
    expect(cache.get()).toBe(first);
    await refreshing;
    expect(cache.get()).toEqual({ reservationDefaultMaxTokens: 1234, responsesRetentionDays: 30, spendAlertThresholds: [50, 80, 100], spendAlertWebhookUrl: "", requestLogRetentionDays: 90 });
  });
});
