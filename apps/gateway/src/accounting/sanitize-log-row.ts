import type { requestLogs } from "@tollgate/db";

type RequestLogRow = typeof requestLogs.$inferInsert;

/**
 * Longest value kept per text column of a request-log row. The model is part of usage_hourly's unique
 * index, whose entries Postgres caps at about 2,700 bytes: 256 characters (at most 1,024 bytes) stay far
 * below it. The edge refuses longer identifiers already; this holds whatever reaches the writer.
 */
const TEXT_LIMITS = {
  requestId: 128,
  tokenName: 200,
  endpoint: 64,
  model: 256,
  requestedModel: 256,
  upstreamModel: 256,
  errorCode: 128,
  clientIp: 64,
} as const satisfies Partial<Record<keyof RequestLogRow, number>>;

const fields = Object.entries(TEXT_LIMITS) as Array<[keyof typeof TEXT_LIMITS, number]>;

/**
 * NUL is the one character Postgres text cannot hold; a lone surrogate (half of a UTF-16 pair) cannot be
 * encoded as UTF-8 at all and is replaced with U+FFFD (so is the half a cut leaves of a pair).
 */
function clean(value: string, limit: number): string {
  const withoutNul = value.includes("\0") ? value.replaceAll("\0", "") : value;
  return (withoutNul.length > limit ? withoutNul.slice(0, limit) : withoutNul).toWellFormed();
}

/**
 * A request-log row the database can store: NUL characters removed, lone surrogates replaced and text cut
 * to its column's bound.
 * Returns the row itself when nothing needs changing (the common case: no copy).
 */
export function sanitizeLogRow(row: RequestLogRow): RequestLogRow {
  let copy: RequestLogRow | null = null;
  for (const [field, limit] of fields) {
    const value = row[field];
    if (typeof value !== "string") continue;
    if (value.length <= limit && !value.includes("\0") && value.isWellFormed()) continue;
    copy ??= { ...row };
    copy[field] = clean(value, limit) as never;
  }
  return copy ?? row;
}
