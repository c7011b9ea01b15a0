import { z } from "zod";

/** Most audit rows one page may hold. */
export const MAX_AUDIT_PAGE_SIZE = 500;

/** Filters of the audit log (console page, CSV export, CLI, API); every one optional. */
export const auditFiltersSchema = z.object({
  actorKind: z.enum(["user", "cli", "api_key"]).optional(),
  /** Matched case-insensitively anywhere in the actor's name. */
  actor: z.string().trim().min(1).max(200).optional(),
  /** Exact action (`token.create`), or a prefix ending in a dot (`token.`). */
  action: z.string().trim().min(1).max(100).optional(),
  objectType: z.string().trim().min(1).max(100).optional(),
  objectId: z.string().trim().min(1).max(200).optional(),
  /** Rows at or after `from` and before `to`. */
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
});

/** Newest first, a page at a time: `cursor` is the previous page's `nextCursor` (an id). */
export const listAuditSchema = auditFiltersSchema.extend({
  cursor: z.string().regex(/^\d{1,18}$/, "Invalid cursor").nullish(),
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE_SIZE).default(50),
});

/** Days an audit row is kept; null: forever. */
export const auditRetentionSchema = z.object({
  days: z
    .number({ error: "Must be a number of days" })
    .int("Must be a whole number of days")
    .min(1, "Must be at least 1 day (leave it empty to keep rows forever)")
    .max(36_500, "Must be at most 36500 days (100 years)")
    .nullable(),
});

export type AuditFilters = z.output<typeof auditFiltersSchema>;
export type ListAuditInput = z.output<typeof listAuditSchema>;
