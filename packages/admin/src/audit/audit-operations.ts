import { auditAnchor, auditLog, type Database, settings } from "@tollgate/db";
import { and, asc, desc, eq, gt, gte, ilike, like, lt, max, sql, type SQL } from "drizzle-orm";
import { type Actor, isAdministrator } from "../actor";
import { AdminError } from "../admin-error";
import { containsPattern } from "../values/page-query";
import { auditRowHash, GENESIS_HASH } from "./audit-hash";
import { AUDIT_CHAIN_LOCK_ID, recordAudit } from "./record-audit";
import type { AuditFilters, ListAuditInput } from "./audit-schemas";

/** The settings row holding the retention, in days. */
export const AUDIT_RETENTION_KEY = "audit_retention_days";

export type AuditRow = typeof auditLog.$inferSelect;

function requireAdministrator(actor: Actor): void {
  if (!isAdministrator(actor)) throw new AdminError("forbidden", "Only an administrator can see the audit log");
}

/** The WHERE conditions of the filters (shared by the list and the CSV export). */
export function auditConditions(filters: AuditFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.actorKind) conditions.push(eq(auditLog.actorKind, filters.actorKind));
  if (filters.actor) conditions.push(ilike(auditLog.actorName, containsPattern(filters.actor)));
  if (filters.action) {
    conditions.push(filters.action.endsWith(".") ? like(auditLog.action, `${filters.action.replace(/[\\%_]/g, (character) => `\\${character}`)}%`) : eq(auditLog.action, filters.action));
  }
  if (filters.objectType) conditions.push(eq(auditLog.objectType, filters.objectType));
  if (filters.objectId) conditions.push(eq(auditLog.objectId, filters.objectId));
  if (filters.from) conditions.push(gte(auditLog.at, filters.from));
  if (filters.to) conditions.push(lt(auditLog.at, filters.to));
  return conditions;
}

/** One page of the audit log, newest first, keyset-paginated on id; administrators only. */
export async function listAudit(db: Database, actor: Actor, input: ListAuditInput): Promise<{ items: AuditRow[]; nextCursor: string | null }> {
  requireAdministrator(actor);
  const conditions = auditConditions(input);
  if (input.cursor) conditions.push(lt(auditLog.id, Number(input.cursor)));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(input.limit + 1);
  const items = rows.slice(0, input.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > input.limit && last ? String(last.id) : null };
}

export interface AuditVerification {
  ok: boolean;
  /** Rows whose hash was checked. */
  checked: number;
  /** The first row that does not chain: its id, and why. */
  firstBroken: { id: number; reason: string } | null;
}

const VERIFY_BATCH = 1000;

/**
 * Walks the chain from the oldest kept row: each row's prev_hash must be the hash of the row before it (the
 * first: the purge's anchor, or the genesis hash when nothing was purged) and its hash must cover its own
 * fields. An edited row fails its own hash; a deleted one breaks the next row's prev_hash (or, if it was the
 * oldest kept, the anchor). The newest row's deletion cannot be seen from the chain alone.
 */
export async function verifyAuditChain(db: Database): Promise<AuditVerification> {
  // Written by the purge: the rows before it were purged on purpose, not deleted by hand.
  const [anchorRow] = await db.select().from(auditAnchor).limit(1);
  const anchor = anchorRow ? { id: anchorRow.rowId, prevHash: anchorRow.prevHash } : undefined;
  let expectedPrev = anchor?.prevHash ?? GENESIS_HASH;
  let afterId = 0;
  let checked = 0;
  let first = true;
  for (;;) {
    const rows = await db.select().from(auditLog).where(gt(auditLog.id, afterId)).orderBy(asc(auditLog.id)).limit(VERIFY_BATCH);
    for (const row of rows) {
      if (first && anchor && row.id !== anchor.id) {
        return { ok: false, checked, firstBroken: { id: row.id, reason: `the oldest kept row should be ${anchor.id}: rows before this one were deleted` } };
      }
      first = false;
      if (row.prevHash !== expectedPrev) {
        return { ok: false, checked, firstBroken: { id: row.id, reason: "its prev_hash is not the previous row's hash: a row before it was deleted or edited" } };
      }
      if (auditRowHash(row) !== row.hash) {
        return { ok: false, checked, firstBroken: { id: row.id, reason: "its hash does not match its fields: the row was edited" } };
      }
      expectedPrev = row.hash;
      checked += 1;
    }
    if (rows.length < VERIFY_BATCH) break;
    afterId = rows[rows.length - 1]!.id;
  }
  if (first && anchor) return { ok: false, checked, firstBroken: { id: anchor.id, reason: "the anchor's row and every row after it were deleted" } };
  return { ok: true, checked, firstBroken: null };
}

export async function getAuditRetention(db: Pick<Database, "select">): Promise<{ days: number | null }> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, AUDIT_RETENTION_KEY)).limit(1);
  return { days: typeof row?.value === "number" ? row.value : null };
}

/** Sets how many days audit rows are kept (null: forever); the change is itself audited. */
export async function setAuditRetention(db: Database, actor: Actor, input: { days: number | null }): Promise<{ days: number | null }> {
  if (!isAdministrator(actor)) throw new AdminError("forbidden", "Only an administrator can change the audit retention");
  await db.transaction(async (transaction) => {
    const before = await getAuditRetention(transaction);
    if (input.days === null) await transaction.delete(settings).where(eq(settings.key, AUDIT_RETENTION_KEY));
    else {
      await transaction
        .insert(settings)
        .values({ key: AUDIT_RETENTION_KEY, value: input.days })
        .onConflictDoUpdate({ target: settings.key, set: { value: input.days, updatedAt: new Date() } });
    }
    await recordAudit(transaction, actor, { action: "settings.update_audit_retention", objectType: "settings", objectId: AUDIT_RETENTION_KEY, before, after: input });
  });
  return input;
}

/**
 * Deletes the rows older than the retention (never the newest row, so the chain goes on from it) and records
 * the oldest kept row as the anchor, in one transaction under the chain's lock. Off the request path: a
 * console job and `admin audit purge` call it; any instance may, at any time (it is idempotent).
 */
export async function purgeAuditLog(db: Database, now: Date = new Date()): Promise<{ deleted: number }> {
  const { days } = await getAuditRetention(db);
  if (days === null) return { deleted: 0 };
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  return db.transaction(async (transaction) => {
    await transaction.execute(sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK_ID})`);
    const [newest] = await transaction.select({ id: max(auditLog.id) }).from(auditLog);
    if (!newest?.id) return { deleted: 0 };
    await transaction.execute(sql`select set_config('tollgate.audit_purge', 'on', true)`);
    const deleted = await transaction
      .delete(auditLog)
      .where(and(lt(auditLog.at, cutoff), lt(auditLog.id, newest.id)))
      .returning({ id: auditLog.id });
    await transaction.execute(sql`select set_config('tollgate.audit_purge', 'off', true)`);
    if (deleted.length === 0) return { deleted: 0 };
    const [oldest] = await transaction.select({ id: auditLog.id, prevHash: auditLog.prevHash }).from(auditLog).orderBy(asc(auditLog.id)).limit(1);
    if (oldest) {
      const anchor = { rowId: oldest.id, prevHash: oldest.prevHash, purgedAt: new Date() };
      await transaction.insert(auditAnchor).values(anchor).onConflictDoUpdate({ target: auditAnchor.slot, set: anchor });
    }
    return { deleted: deleted.length };
  });
}
