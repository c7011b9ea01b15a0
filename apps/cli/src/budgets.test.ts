import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { settings, spendAlerts, tokens, users } from "@tollgate/db";
import { WEBHOOK_SECRET_BINDING } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

let harness: CliHarness;

beforeAll(async () => {
  harness = await createCliHarness();
  await harness.runJson("user", "create", "--name", "alice");
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

type Budget = { period: string; timeZone: string; limit: string | null; spent: string; remaining: string | null; resetsAt: string | null; alertThresholds: number[] | null };

describe("token budgets in the CLI", () => {
  test("token create --quota 50 --period monthly makes a $50 monthly quota and shows its spend and reset", async () => {
    const created = await harness.runJson<{ id: number; budget: Budget }>(
      "token", "create", "--user", "alice", "--name", "monthly", "--quota", "50", "--period", "monthly", "--time-zone", "europe/paris",
    );
    expect(created.budget).toMatchObject({ period: "monthly", timeZone: "Europe/Paris", limit: "50.000000", spent: "0.000000", remaining: "50.000000" });
    // Midnight on the first of next month in Paris, as a UTC instant.
    expect(created.budget.resetsAt).toMatch(/^\d{4}-\d{2}-(01T00|01T23|30T23|31T23|28T23|29T23):00:00\.000Z$/);
    const [row] = await harness.context.db.select().from(tokens).where(eq(tokens.id, created.id));
    expect(row).toMatchObject({ quotaLimit: 50_000_000, budgetPeriod: "monthly", budgetTimeZone: "Europe/Paris" });
    const shown = await harness.run("token", "show", String(created.id));
    expect(shown.stdout).toMatch(/^period:\s+monthly \(Europe\/Paris\)$/m);
    expect(shown.stdout).toMatch(/^spent this period: \$0\.000000 of \$50\.000000$/m);
    expect(shown.stdout).toMatch(/^resets:\s+\d{4}-/m);
  });

  test("a period's spend counts only when the row is of the current period", async () => {
    const created = await harness.runJson<{ id: number }>("token", "create", "--user", "alice", "--name", "daily", "--quota", "5", "--period", "daily");
    await harness.context.db
      .update(tokens)
      .set({ periodStart: new Date(Date.now() - 3 * 86_400_000), periodUsed: 4_000_000, usedQuota: 4_000_000 })
      .where(eq(tokens.id, created.id));
    const old = await harness.runJson<{ budget: Budget }>("token", "show", String(created.id));
    expect(old.budget.spent).toBe("0.000000");
    const today = new Date();
    today.setUTCHours(0, 0, 0, 0);
    await harness.context.db.update(tokens).set({ periodStart: today, periodUsed: 1_500_000 }).where(eq(tokens.id, created.id));
    const current = await harness.runJson<{ budget: Budget; quotaRemaining: string }>("token", "show", String(created.id));
    expect(current.budget.spent).toBe("1.500000");
    expect(current.quotaRemaining).toBe("3.500000");
  });

  test("changing a token's period starts the count afresh", async () => {
    const created = await harness.runJson<{ id: number }>("token", "create", "--user", "alice", "--name", "switch", "--quota", "5", "--period", "daily");
    await harness.context.db.update(tokens).set({ periodStart: new Date(), periodUsed: 1000 }).where(eq(tokens.id, created.id));
    const updated = await harness.runJson<{ budget: Budget }>("token", "update", String(created.id), "--period", "weekly", "--alert-at", "90,50");
    expect(updated.budget).toMatchObject({ period: "weekly", spent: "0.000000", alertThresholds: [50, 90] });
    const [row] = await harness.context.db.select().from(tokens).where(eq(tokens.id, created.id));
    expect(row).toMatchObject({ periodStart: null, periodUsed: 0, alertThresholds: [50, 90] });
  });

  test("a bad period, a bad time zone and bad thresholds are refused with a message naming the flag", async () => {
    await harness.expectRejected(["token", "create", "--user", "alice", "--name", "x", "--quota", "5", "--period", "fortnightly"], '--period must be "none", "daily", "weekly" or "monthly"');
    await harness.expectRejected(["token", "create", "--user", "alice", "--name", "x", "--period", "daily", "--time-zone", "Mars/Olympus"], '--time-zone must be an IANA time zone, such as "UTC" or "Europe/Paris"');
    await harness.expectRejected(["token", "create", "--user", "alice", "--name", "x", "--alert-at", "50,eighty"], "--alert-at must be a list of percentages from 1 to 1000 (at most 10)");
  });
});

describe("user budgets in the CLI", () => {
  test("user create and user budget set a user's budget, period and zone", async () => {
    const created = await harness.runJson<{ id: number; budget: Budget }>(
      "user", "create", "--name", "bob", "--budget", "100", "--period", "weekly", "--time-zone", "UTC",
    );
    expect(created.budget).toMatchObject({ period: "weekly", timeZone: "UTC", limit: "100.000000", spent: "0.000000" });
    const updated = await harness.runJson<{ budget: Budget }>("user", "budget", "bob", "--budget", "20", "--period", "daily", "--time-zone", "Asia/Tokyo");
    expect(updated.budget).toMatchObject({ period: "daily", timeZone: "Asia/Tokyo", limit: "20.000000" });
    const [row] = await harness.context.db.select().from(users).where(eq(users.id, created.id));
    expect(row).toMatchObject({ budgetLimit: 20_000_000, budgetPeriod: "daily", budgetTimeZone: "Asia/Tokyo" });
    const listed = await harness.run("user", "list");
    expect(listed.stdout).toMatch(/bob\s+user\s+default\s+unlimited\s+\$20\.000000 daily\s+\$0\.000000\s+\d{4}-\d{2}-\d{2}T15:00:00\.000Z\s+enabled/);
  });

  test("user budget refuses a bad period or zone and changes nothing", async () => {
    await harness.expectRejected(["user", "budget", "bob", "--period", "yearly"], '--period must be "none", "daily", "weekly" or "monthly"');
    await harness.expectRejected(["user", "budget", "bob", "--time-zone", "Nowhere"], "--time-zone must be an IANA time zone");
    await harness.expectRejected(["user", "budget", "bob"], "user budget needs --budget, --period, --time-zone or --alert-at");
  });
});

describe("spend alert settings in the CLI", () => {
  test("the webhook's secret is stored encrypted and shown only as its last four characters", async () => {
    const secret = "whsec_0123456789abcdefXYZW";
    const view = await harness.runJson<{ webhookUrl: string; webhookSecretMasked: string; thresholds: number[] }>(
      "alerts", "settings", "--webhook-url", "https://hooks.example.com/tollgate", "--webhook-secret", secret, "--thresholds", "80,100",
    );
    expect(view).toEqual({ webhookUrl: "https://hooks.example.com/tollgate", webhookSecretMasked: "…XYZW", thresholds: [80, 100] });
    const shown = await harness.run("alerts", "settings");
    expect(shown.stdout).not.toContain(secret);
    expect(shown.stdout).toMatch(/^webhook secret: …XYZW$/m);
    const [stored] = await harness.context.db.select().from(settings).where(eq(settings.key, "spend_alert_webhook_secret"));
    expect(String(stored!.value)).not.toContain(secret);
    expect(await harness.context.secretBox.decrypt(String(stored!.value), WEBHOOK_SECRET_BINDING)).toBe(secret);
  });

  test("a webhook URL that is not http(s) and a short secret are refused", async () => {
    await harness.expectRejected(["alerts", "settings", "--webhook-url", "ftp://example.com/x"], "--webhook-url must be an http:// or https:// URL");
    await harness.expectRejected(["alerts", "settings", "--webhook-secret", "short"], "--webhook-secret must be 16 to 256 characters");
  });
});

describe("alerts list in the CLI", () => {
  test("lists recent alerts newest first with their delivery state, and refuses a bad limit", async () => {
    const [alice] = await harness.context.db.select().from(users).where(eq(users.name, "alice"));
    await harness.context.db.insert(spendAlerts).values({
      subjectKind: "user",
      subjectId: alice!.id,
      userId: alice!.id,
      userName: "alice",
      period: "none",
      periodStart: new Date(0),
      threshold: 100,
      spent: 5_000_000,
      limit: 5_000_000,
      nextAttemptAt: null,
    });
    const listed = await harness.runJson<Array<Record<string, unknown>>>("alerts", "list");
    expect(listed[0]).toMatchObject({ subject: "user", userName: "alice", period: "none", periodStart: null, threshold: 100, spent: "5.000000", limit: "5.000000", deliveredAt: null });
    const table = await harness.run("alerts", "list");
    expect(table.stdout).toMatch(/user alice\s+lifetime\s+100%\s+\$5\.000000\s+\$5\.000000\s+not sent \(no webhook\)/);
    await harness.expectRejected(["alerts", "list", "--limit", "0"], "--limit must be a whole number from 1 to 200");
  });
});
