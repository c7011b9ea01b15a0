import { type Database, settings, spendAlerts } from "@tollgate/db";
import { DEFAULT_UPSTREAM_ADDRESS_POLICY, type SecretBox, type UpstreamAddressPolicy, upstreamAddressRefusal, WEBHOOK_SECRET_BINDING } from "@tollgate/shared";
import { desc, eq, inArray } from "drizzle-orm";
import { type Actor, isAdministrator, userIdOf } from "../actor";
import { AdminError } from "../admin-error";
import { maskKey } from "../mask-key";
import type { AlertSettingsInput } from "./alert-schemas";
import { recordAudit } from "../audit/record-audit";

/** The stored alert settings for the audit log (the secret, sealed, is redacted there). */
async function storedAlertSettings(db: Pick<Database, "select">): Promise<Record<string, unknown>> {
  const rows = await db.select().from(settings).where(inArray(settings.key, [URL_KEY, SECRET_KEY, THRESHOLDS_KEY]));
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}

const URL_KEY = "spend_alert_webhook_url";
const SECRET_KEY = "spend_alert_webhook_secret";
const THRESHOLDS_KEY = "spend_alert_thresholds";
/** As the gateway's settings cache defaults it. */
const DEFAULT_THRESHOLDS = [50, 80, 100];

/** The spend-alert settings as any interface may show them: the secret only as `…last4`. */
export interface AlertSettingsView {
  webhookUrl: string;
  /** `…abcd`, `****` for a short one, null when none is set. */
  webhookSecretMasked: string | null;
  thresholds: number[];
}

export async function getAlertSettings(db: Database, secretBox: SecretBox): Promise<AlertSettingsView> {
  const rows = await db.select().from(settings).where(inArray(settings.key, [URL_KEY, SECRET_KEY, THRESHOLDS_KEY]));
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  const url = value(URL_KEY);
  const secret = value(SECRET_KEY);
  const thresholds = value(THRESHOLDS_KEY);
  let webhookSecretMasked: string | null = null;
  if (typeof secret === "string" && secret !== "") {
    // maskKey shows at most the last 4 characters: a secret is at least 16.
    webhookSecretMasked = maskKey(await secretBox.decrypt(secret, WEBHOOK_SECRET_BINDING));
  }
  return {
    webhookUrl: typeof url === "string" ? url : "",
    webhookSecretMasked,
    thresholds: Array.isArray(thresholds) ? thresholds.map(Number) : DEFAULT_THRESHOLDS,
  };
}

/** Sets what the input names; the secret is stored encrypted (TOLLGATE_SECRET), like channel keys. */
export async function setAlertSettings(
  db: Database,
  secretBox: SecretBox,
  actor: Actor,
  input: AlertSettingsInput,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
): Promise<AlertSettingsView> {
  if (!isAdministrator(actor)) throw new AdminError("forbidden", "Only an administrator can change spend alerts");
  if (input.webhookUrl) {
    const refusal = upstreamAddressRefusal(input.webhookUrl, policy);
    if (refusal !== null) throw new AdminError("invalid_input", refusal, { field: "webhookUrl" });
  }
  const sealedSecret = input.webhookSecret === undefined || input.webhookSecret === "" ? input.webhookSecret : await secretBox.encrypt(input.webhookSecret, WEBHOOK_SECRET_BINDING);
  await db.transaction(async (transaction) => {
    const before = await storedAlertSettings(transaction);
    const upsert = (key: string, value: unknown) =>
      transaction
        .insert(settings)
        .values({ key, value })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: new Date() } });
    if (input.webhookUrl !== undefined) await upsert(URL_KEY, input.webhookUrl);
    if (sealedSecret !== undefined) await upsert(SECRET_KEY, sealedSecret);
    if (input.thresholds !== undefined) await upsert(THRESHOLDS_KEY, input.thresholds);
    const after = await storedAlertSettings(transaction);
    await recordAudit(transaction, actor, { action: "settings.update_alerts", objectType: "settings", objectId: "spend_alerts", before, after });
  });
  return getAlertSettings(db, secretBox);
}

/**
 * Recent spend alerts, newest first (the console's notices): an administrator sees every one, a user those
 * of their own tokens and account.
 */
export function listSpendAlerts(db: Database, actor: Actor, options: { limit: number }) {
  return db
    .select({
      id: spendAlerts.id,
      subjectKind: spendAlerts.subjectKind,
      userId: spendAlerts.userId,
      userName: spendAlerts.userName,
      tokenId: spendAlerts.tokenId,
      tokenName: spendAlerts.tokenName,
      teamId: spendAlerts.teamId,
      teamName: spendAlerts.teamName,
      period: spendAlerts.period,
      periodStart: spendAlerts.periodStart,
      periodEnd: spendAlerts.periodEnd,
      threshold: spendAlerts.threshold,
      spent: spendAlerts.spent,
      limit: spendAlerts.limit,
      createdAt: spendAlerts.createdAt,
      deliveredAt: spendAlerts.deliveredAt,
      attempts: spendAlerts.attempts,
      nextAttemptAt: spendAlerts.nextAttemptAt,
      lastError: spendAlerts.lastError,
    })
    .from(spendAlerts)
    .where(isAdministrator(actor) ? undefined : eq(spendAlerts.userId, userIdOf(actor)))
    .orderBy(desc(spendAlerts.createdAt), desc(spendAlerts.id))
    .limit(options.limit);
}
