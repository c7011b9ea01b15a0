import type { LeaseSubject } from "./quota-leases";
import type { UsageRecord } from "./usage-writer";

type RequestLogRow = UsageRecord["log"];

/** One record of a spool file, as read back. */
export interface SpoolLine {
  /** Sequence number in its spool. */
  s: number;
  t: number;
  u: number;
  c: number;
  /** The period and budget subjects of the call's spend, when it has any. */
  b?: string[];
  /** Present (1) when the call came with the secret a roll replaced. */
  p?: 1;
  l: RequestLogRow;
}

/** The first element of a line in the positional format (lines of the older object format start with `{`). */
const POSITIONAL = 2;

/**
 * The request_logs columns of a positional line, in their order after the record's own six fields
 * (`[2, seq, token, user, cost, previousKey 0|1, subjects|null, ...columns]`). spool-line.test.ts
 * round-trips every request_logs column, so a column added to the table and not here fails it.
 */
const LOG_COLUMNS = [
  "createdAt", "requestId", "userId", "tokenId", "tokenName", "endpoint", "model", "requestedModel", "upstreamModel",
  "channelId", "channelsTried", "promptTokens", "completionTokens", "cachedTokens", "cacheWriteTokens", "cacheWrite1hTokens",
  "usageEstimated", "billedUnit", "billedQuantity", "cost", "cacheSavings", "status", "errorCode", "latencyMs",
  "firstTokenMs", "clientIp", "stream", "responseBytes", "responseCache",
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

const HEAD_FIELDS = 7;

function orNull<T>(value: T | null | undefined): T | null {
  return value === undefined ? null : value;
}

/**
 * A record as one JSON line, positional (an array in LOG_COLUMNS's order, no keys): it runs on every
 * request, is copied into the spool file and handed to the write-behind thread, and a third of the bytes of
 * the keyed object it replaced cost a third of each. One JSON.stringify of a flat array of primitives (the
 * time as milliseconds) costs about 0.35 us, less than a template of the same values (0.55 us) and a tenth
 * of stringifying the keyed record with its Date.
 */
export function encodeSpoolLine(record: UsageRecord): string {
  const log = record.log;
  return `${JSON.stringify([
    POSITIONAL, record.seq, record.tokenId, record.userId, record.cost, record.previousKey ? 1 : 0,
    record.periodSubjects && record.periodSubjects.length > 0 ? record.periodSubjects : null,
    log.createdAt ? log.createdAt.getTime() : null, log.requestId, orNull(log.userId), orNull(log.tokenId), orNull(log.tokenName),
    log.endpoint, log.model, orNull(log.requestedModel), orNull(log.upstreamModel), orNull(log.channelId), orNull(log.channelsTried),
    orNull(log.promptTokens), orNull(log.completionTokens), orNull(log.cachedTokens), orNull(log.cacheWriteTokens),
    orNull(log.cacheWrite1hTokens), log.usageEstimated === true, orNull(log.billedUnit), orNull(log.billedQuantity), orNull(log.cost),
    orNull(log.cacheSavings), log.status, orNull(log.errorCode), log.latencyMs, orNull(log.firstTokenMs), orNull(log.clientIp),
    log.stream === true, orNull(log.responseBytes), orNull(log.responseCache),
  ])}\n`;
}

/**
 * Columns that are NOT NULL with a default: a record that left one out is written with the default, as the
 * record itself would be, not with the null its line holds.
 */
const defaultedColumns = new Set<string>([
  "promptTokens",
  "completionTokens",
  "cachedTokens",
  "cacheWriteTokens",
  "cacheWrite1hTokens",
  "billedUnit",
  "cost",
  "cacheSavings",
]);

function notASpoolLine(): never {
  throw new Error("not a spool line");
}

/**
 * The record of one line (its creation time back as a Date); throws on a torn or foreign line. Reads both
 * the positional lines written now and the keyed objects of earlier versions (a spool left by an older
 * gateway is replayed by a newer one).
 */
export function decodeSpoolLine(line: string): SpoolLine {
  const parsed = JSON.parse(line) as unknown;
  if (Array.isArray(parsed)) return decodePositional(parsed);
  const keyed = parsed as SpoolLine & { l: { createdAt: number | null } };
  if (typeof keyed !== "object" || keyed === null || typeof keyed.s !== "number" || typeof keyed.l !== "object" || keyed.l === null) notASpoolLine();
  const created = keyed.l.createdAt;
  const log = keyed.l as RequestLogRow;
  log.createdAt = created === null ? undefined : new Date(created);
  for (const column of defaultedColumns) if (log[column as keyof RequestLogRow] === null) (log as Record<string, unknown>)[column] = undefined;
  return keyed;
}

function decodePositional(values: unknown[]): SpoolLine {
  if (values[0] !== POSITIONAL || values.length !== HEAD_FIELDS + LOG_COLUMNS.length || typeof values[1] !== "number") notASpoolLine();
  const log: Record<string, unknown> = {};
  for (let index = 0; index < LOG_COLUMNS.length; index++) {
    const column = LOG_COLUMNS[index]!;
    const value = values[HEAD_FIELDS + index];
    log[column] = value === null && defaultedColumns.has(column) ? undefined : value;
  }
  log.createdAt = typeof log.createdAt === "number" ? new Date(log.createdAt) : undefined;
  const decoded: SpoolLine = { s: values[1] as number, t: values[2] as number, u: values[3] as number, c: values[4] as number, l: log as RequestLogRow };
  if (values[5] === 1) decoded.p = 1;
  if (Array.isArray(values[6])) decoded.b = values[6] as string[];
  return decoded;
}

/** The usage record a line was encoded from (as the write-behind writes it). */
export function usageRecordOfLine(line: SpoolLine): UsageRecord {
  const record: UsageRecord = { log: line.l, tokenId: line.t, userId: line.u, cost: line.c };
  // Spool numbers start at 1: 0 stands for a record that had none (the writer numbers those itself).
  if (line.s > 0) record.seq = line.s;
  if (line.p === 1) record.previousKey = true;
  if (line.b && line.b.length > 0) record.periodSubjects = line.b as LeaseSubject[];
  return record;
}

/**
 * The records of lines joined into one text (as the main thread hands them to the write-behind thread),
 * in order.
 */
export function usageRecordsOfText(text: string): UsageRecord[] {
  const records: UsageRecord[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    if (end === -1) break;
    records.push(usageRecordOfLine(decodeSpoolLine(text.slice(start, end))));
    start = end + 1;
  }
  return records;
}
