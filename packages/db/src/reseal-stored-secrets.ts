import { channelKeyBinding, isSealedWithOldFormat, type SecretBox, WEBHOOK_SECRET_BINDING } from "@tollgate/shared";
import { and, eq, like } from "drizzle-orm";
import type { Database } from "./client";
import { channels } from "./schema/channels";
import { settings } from "./schema/settings";

export interface ResealOutcome {
  /** Channel keys re-sealed in this run. */
  channels: number;
  /** Settings re-sealed in this run (the webhook secret). */
  settings: number;
  /** Old-format values this secret cannot open (written with another TOLLGATE_SECRET): left as they were. */
  unreadable: number;
}

/**
 * Re-seals every secret still in the old format (v1: unsalted key, no binding) in the current one, bound to
 * its row. Run by the server at start, after the migrations: a SQL migration cannot do it, since only the
 * process holds TOLLGATE_SECRET. One transaction; each row is replaced only if it still holds the value that
 * was read (`where api_key_encrypted = <old>`), so instances starting together, or an admin changing the key
 * meanwhile, never lose a write and never seal a sealed value again. Nothing to do: nothing written.
 */
export async function resealStoredSecrets(db: Database, secretBox: SecretBox): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { channels: 0, settings: 0, unreadable: 0 };
  const oldChannels = await db
    .select({ id: channels.id, apiKeyEncrypted: channels.apiKeyEncrypted })
    .from(channels)
    .where(like(channels.apiKeyEncrypted, "v1:%"));
  const [webhookSecret] = await db.select().from(settings).where(eq(settings.key, "spend_alert_webhook_secret"));
  const oldWebhookSecret = typeof webhookSecret?.value === "string" && isSealedWithOldFormat(webhookSecret.value) ? webhookSecret.value : null;
  if (oldChannels.length === 0 && oldWebhookSecret === null) return outcome;
  const reseal = async (stored: string, binding: string): Promise<string | null> => {
    try {
      return await secretBox.encrypt(await secretBox.decrypt(stored, binding), binding);
    } catch {
      outcome.unreadable += 1;
      return null;
    }
  };
  await db.transaction(async (transaction) => {
    for (const row of oldChannels) {
      const sealed = await reseal(row.apiKeyEncrypted, channelKeyBinding(row.id));
      if (sealed === null) continue;
      const updated = await transaction
        .update(channels)
        .set({ apiKeyEncrypted: sealed })
        .where(and(eq(channels.id, row.id), eq(channels.apiKeyEncrypted, row.apiKeyEncrypted)))
        .returning({ id: channels.id });
      outcome.channels += updated.length;
    }
    if (oldWebhookSecret !== null) {
      const sealed = await reseal(oldWebhookSecret, WEBHOOK_SECRET_BINDING);
      if (sealed !== null) {
        const updated = await transaction
          .update(settings)
          .set({ value: sealed, updatedAt: new Date() })
          .where(and(eq(settings.key, "spend_alert_webhook_secret"), eq(settings.value, oldWebhookSecret)))
          .returning({ key: settings.key });
        outcome.settings += updated.length;
      }
    }
  });
  return outcome;
}
