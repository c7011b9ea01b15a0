import { channels, type Database } from "@tollgate/db";
import { eq } from "drizzle-orm";

/**
 * The gateway's one write to `channels`: marks a channel auto_disabled with the reason shown to operators.
 * The table's NOTIFY trigger then tells every instance, whose catalogs stop routing to it.
 */
export async function markChannelAutoDisabled(db: Database, channelId: number, reason: string): Promise<void> {
  await db.update(channels).set({ status: "auto_disabled", statusReason: reason, updatedAt: new Date() }).where(eq(channels.id, channelId));
}
