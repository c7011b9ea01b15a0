import { type AnyColumn, eq, type SQL } from "drizzle-orm";
import type { AdminError } from "../admin-error";

/**
 * Resolves a row named the CLI's way, `NAME_OR_ID`: all digits is looked up as an id first, then as a name
 * (names made only of digits are refused at creation, so the two cannot collide). `first(where)` reads the
 * first row matching `where` on `table`'s id or name column.
 */
export async function findByNameOrId<Row>(
  reference: string,
  table: { id: AnyColumn; name: AnyColumn },
  first: (where: SQL) => Promise<Row | undefined>,
  unknown: (reference: string) => AdminError,
): Promise<Row> {
  const trimmed = reference.trim();
  if (/^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))) {
    const byId = await first(eq(table.id, Number(trimmed)));
    if (byId) return byId;
  }
  const byName = await first(eq(table.name, trimmed));
  if (byName) return byName;
  throw unknown(trimmed);
}
