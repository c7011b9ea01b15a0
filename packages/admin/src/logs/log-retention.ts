import { type Database, settings } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { type Actor, isAdministrator } from "../actor";
import { AdminError } from "../admin-error";
import { recordAudit } from "../audit/record-audit";

/** The settings row the gateways' log-retention job reads (apps/gateway settings-cache.ts). */
const RETENTION_KEY = "request_log_retention_days";
/** As the gateway's settings cache defaults it. */
export const DEFAULT_LOG_RETENTION_DAYS = 90;
/** A hundred years: longer is "forever", which is 0. */
const MAX_RETENTION_DAYS = 36_500;

const RETENTION_MESSAGE = `Must be a whole number of days from 0 (keep every row) to ${MAX_RETENTION_DAYS}`;

export const logRetentionSchema = z.object({
  /** Days a request-log row is kept before the hourly purge removes it; 0 keeps every row. */
  days: z.number({ error: RETENTION_MESSAGE }).int(RETENTION_MESSAGE).min(0, RETENTION_MESSAGE).max(MAX_RETENTION_DAYS, RETENTION_MESSAGE),
});

export type LogRetentionInput = z.output<typeof logRetentionSchema>;

export interface LogRetentionView {
  days: number;
}

export async function getLogRetention(db: Pick<Database, "select">): Promise<LogRetentionView> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, RETENTION_KEY));
  return { days: typeof row?.value === "number" ? row.value : DEFAULT_LOG_RETENTION_DAYS };
}

/** Sets the retention; every gateway picks it up on the settings NOTIFY, and its next purge honours it. */
export async function setLogRetention(db: Database, actor: Actor, input: LogRetentionInput): Promise<LogRetentionView> {
  if (!isAdministrator(actor)) throw new AdminError("forbidden", "Only an administrator can change the log retention");
  await db.transaction(async (transaction) => {
    const before = await getLogRetention(transaction);
    await transaction
      .insert(settings)
      .values({ key: RETENTION_KEY, value: input.days })
      .onConflictDoUpdate({ target: settings.key, set: { value: input.days, updatedAt: new Date() } });
    await recordAudit(transaction, actor, { action: "settings.update_log_retention", objectType: "settings", objectId: RETENTION_KEY, before, after: { days: input.days } });
  });
  return getLogRetention(db);
}
