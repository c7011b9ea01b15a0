import { type Database, resultRows } from "@tollgate/db";
import { sql } from "drizzle-orm";

/** The id a new channel row will have, drawn before the insert so that its key is sealed for that row (as createChannel does). */
export async function nextChannelId(db: Database): Promise<number> {
  const [next] = resultRows(await db.execute(sql`select nextval(pg_get_serial_sequence('channels', 'id')) as id`));
  return Number(next!.id);
}
