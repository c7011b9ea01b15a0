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

const text = (value: string | null | undefined) => (value == null ? "null" : JSON.stringify(value));
const number = (value: number | null | undefined) => (value == null ? "null" : String(value));

/**
 * A record as one JSON line. Written by hand instead of JSON.stringify: this runs on every request, and a
 * template over the known columns costs about 0.6 µs where JSON.stringify of the object (its Date
 * included) costs about 3.5 µs. spool-line.test.ts round-trips every request_logs column, so a column
 * added to the table and not here fails it.
 */
export function encodeSpoolLine(record: UsageRecord): string {
  const log = record.log;
  return (
    `{"s":${record.seq},"t":${record.tokenId},"u":${record.userId},"c":${record.cost},${record.previousKey ? `"p":1,` : ""}` +
    `${record.periodSubjects && record.periodSubjects.length > 0 ? `"b":${JSON.stringify(record.periodSubjects)},` : ""}"l":{` +
    `"createdAt":${number(log.createdAt?.getTime())},"requestId":${text(log.requestId)},"userId":${number(log.userId)},` +
    `"tokenId":${number(log.tokenId)},"tokenName":${text(log.tokenName)},"endpoint":${text(log.endpoint)},` +
    `"model":${text(log.model)},"requestedModel":${text(log.requestedModel)},"upstreamModel":${text(log.upstreamModel)},"channelId":${number(log.channelId)},` +
    `"channelsTried":${log.channelsTried ? `[${log.channelsTried.join(",")}]` : "null"},` +
    `"promptTokens":${number(log.promptTokens)},"completionTokens":${number(log.completionTokens)},` +
    `"cachedTokens":${number(log.cachedTokens)},"cacheWriteTokens":${number(log.cacheWriteTokens)},` +
    `"cacheWrite1hTokens":${number(log.cacheWrite1hTokens)},"usageEstimated":${log.usageEstimated === true},` +
    `"billedUnit":${text(log.billedUnit)},"billedQuantity":${number(log.billedQuantity)},"cost":${number(log.cost)},` +
    `"cacheSavings":${number(log.cacheSavings)},` +
    `"status":${log.status},"errorCode":${text(log.errorCode)},"latencyMs":${log.latencyMs},` +
    `"firstTokenMs":${number(log.firstTokenMs)},"clientIp":${text(log.clientIp)},"stream":${log.stream === true},"responseBytes":${number(log.responseBytes)},"responseCache":${text(log.responseCache)}}}\n`
  );
}

/**
 * Columns that are NOT NULL with a default: a record that left one out is written with the default, as the
 * record itself would be, not with the null its line holds.
 */
const defaultedColumns = [
  "promptTokens",
  "completionTokens",
  "cachedTokens",
  "cacheWriteTokens",
  "cacheWrite1hTokens",
  "billedUnit",
  "cost",
  "cacheSavings",
] as const;

/** The record of one line (its creation time back as a Date); throws on a torn or foreign line. */
export function decodeSpoolLine(line: string): SpoolLine {
  const parsed = JSON.parse(line) as SpoolLine & { l: { createdAt: number | null } };
  if (typeof parsed.s !== "number" || typeof parsed.l !== "object" || parsed.l === null) throw new Error("not a spool line");
  const created = parsed.l.createdAt;
  const log = parsed.l as RequestLogRow;
  log.createdAt = created === null ? undefined : new Date(created);
  for (const column of defaultedColumns) if (log[column] === null) log[column] = undefined;
  return parsed;
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
