import { type AuditFilters, auditConditions } from "@tollgate/admin";
import { auditLog, type Database } from "@tollgate/db";
import { and, asc, gt } from "drizzle-orm";
import type { CsvCell } from "./csv-cells";

export const AUDIT_HEADER = ["id", "at", "actor_kind", "actor_id", "actor_name", "source_address", "action", "object_type", "object_id", "before", "after", "prev_hash", "hash"];

const ROWS_PER_PAGE = 1000;

/** The audit rows the filters select, oldest first, page by page on id (before and after as JSON text). */
export function auditPages(db: Database, filters: AuditFilters): () => Promise<CsvCell[][] | null> {
  let afterId = 0;
  let done = false;
  return async () => {
    if (done) return null;
    const rows = await db
      .select()
      .from(auditLog)
      .where(and(...auditConditions(filters), gt(auditLog.id, afterId)))
      .orderBy(asc(auditLog.id))
      .limit(ROWS_PER_PAGE);
    const last = rows.at(-1);
    if (!last) return null;
    if (rows.length < ROWS_PER_PAGE) done = true;
    afterId = last.id;
    return rows.map((row) => [
      row.id,
      row.at,
      row.actorKind,
      row.actorId,
      row.actorName,
      row.sourceAddress,
      row.action,
      row.objectType,
      row.objectId,
      row.before === null ? null : JSON.stringify(row.before),
      row.after === null ? null : JSON.stringify(row.after),
      row.prevHash,
      row.hash,
    ]);
  };
}
