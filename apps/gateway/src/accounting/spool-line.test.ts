import { describe, expect, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { getTableColumns } from "drizzle-orm";
import { decodeSpoolLine, encodeSpoolLine, usageRecordsOfText } from "./spool-line";
import type { LeaseSubject } from "./quota-leases";
import type { UsageRecord } from "./usage-writer";

const fullRow: Required<Omit<UsageRecord["log"], "id">> = {
  createdAt: new Date("2026-11-23T10:11:12.345Z"),
  requestId: "req_spool",
  userId: 7,
  tokenId: 9,
  tokenName: 'laptop "quoted" \\ \u0001 é',
  endpoint: "chat.completions",
  model: "gpt\u0000odd\nname",
  requestedModel: "asked-for",
  upstreamModel: "gpt-upstream",
  channelId: 3,
  channelsTried: [2, 3],
  promptTokens: 100,
  completionTokens: 50,
  cachedTokens: 10,
  cacheWriteTokens: 20,
  cacheWrite1hTokens: 30,
  usageEstimated: true,
  billedUnit: "audio_second",
  billedQuantity: 8.47,
  cost: 1234,
  cacheSavings: -56,
  status: 499,
  errorCode: "client_closed",
  latencyMs: 25,
  firstTokenMs: 20,
  clientIp: "::1",
  stream: true,
  responseBytes: 2048,
  responseCache: "hit",
};

describe("spool lines", () => {
  test("every request_logs column survives a round trip through a spool line", () => {
    const columns = Object.keys(getTableColumns(requestLogs)).filter((name) => name !== "id");
    expect(Object.keys(fullRow).sort()).toEqual(columns.sort());
    const line = encodeSpoolLine({ tokenId: 9, userId: 7, cost: 1234, seq: 42, log: fullRow });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(decodeSpoolLine(line)).toEqual({ s: 42, t: 9, u: 7, c: 1234, l: fullRow });
  });

  test("a line the keyed format of earlier versions wrote is still read (a spool an older gateway left is replayed by a newer one)", () => {
    // As the gateway before the positional format wrote it.
    const older =
      '{"s":12,"t":9,"u":7,"c":1500,"p":1,"b":["token:9:month"],"l":{"createdAt":1795161600000,"requestId":"req_old","userId":7,"tokenId":9,"tokenName":"laptop","endpoint":"chat.completions","model":"gpt-4o","requestedModel":null,"upstreamModel":null,"channelId":3,"channelsTried":[3],"promptTokens":10,"completionTokens":20,"cachedTokens":null,"cacheWriteTokens":null,"cacheWrite1hTokens":null,"usageEstimated":false,"billedUnit":null,"billedQuantity":null,"cost":1500,"cacheSavings":null,"status":200,"errorCode":null,"latencyMs":40,"firstTokenMs":null,"clientIp":"10.0.0.1","stream":false,"responseBytes":null,"responseCache":null}}';
    const decoded = decodeSpoolLine(older);
    expect(decoded).toMatchObject({ s: 12, t: 9, u: 7, c: 1500, p: 1, b: ["token:9:month"] });
    expect(decoded.l).toMatchObject({ requestId: "req_old", model: "gpt-4o", channelsTried: [3], promptTokens: 10, cost: 1500, status: 200, clientIp: "10.0.0.1" });
    expect(decoded.l.createdAt).toEqual(new Date("2026-11-20T08:00:00.000Z"));
    expect(decoded.l.cachedTokens).toBeUndefined();
    // The same record written now decodes to the same thing.
    const now = encodeSpoolLine({ seq: 12, tokenId: 9, userId: 7, cost: 1500, previousKey: true, periodSubjects: ["token:9:month"] as unknown as LeaseSubject[], log: { ...decoded.l } });
    expect(now.length).toBeLessThan(older.length * 0.6);
    expect(decodeSpoolLine(now)).toEqual(decoded);
  });

  test("a line of a format this version does not know is refused", () => {
    expect(() => decodeSpoolLine("[3,1,2,3,4,0,null]")).toThrow("not a spool line");
    expect(() => decodeSpoolLine('"text"')).toThrow("not a spool line");
  });

  test("optional columns left out come back empty, not invented", () => {
    const line = encodeSpoolLine({
      tokenId: 1,
      userId: 2,
      cost: 0,
      seq: 1,
      log: { requestId: "req_min", endpoint: "embeddings", model: "m", status: 401, latencyMs: 3 },
    });
    const decoded = decodeSpoolLine(line).l;
    expect(decoded).toMatchObject({ requestId: "req_min", model: "m", status: 401, latencyMs: 3, usageEstimated: false, stream: false });
    expect(decoded.createdAt).toBeUndefined();
    expect(decoded.channelsTried).toBeNull();
    expect(decoded.upstreamModel).toBeNull();
  });

  test("a call made with a rolled token's previous secret says so, so that a replay records that secret's last use", () => {
    const line = encodeSpoolLine({ tokenId: 9, userId: 7, cost: 5, seq: 4, previousKey: true, log: fullRow });
    expect(decodeSpoolLine(line)).toEqual({ s: 4, t: 9, u: 7, c: 5, p: 1, l: fullRow });
  });

  test("a call's period and budget subjects survive a round trip, so that a replay counts its spend in the period it was admitted in", () => {
    const periodSubjects = ["token:9@1764547200000@monthly@America/Argentina/Buenos_Aires", "budget:7"] as const;
    const line = encodeSpoolLine({ tokenId: 9, userId: 7, cost: 5, seq: 4, periodSubjects: [...periodSubjects], log: fullRow });
    expect(decodeSpoolLine(line)).toEqual({ s: 4, t: 9, u: 7, c: 5, b: [...periodSubjects], l: fullRow });
  });

  test("a torn line is refused rather than half read", () => {
    const line = encodeSpoolLine({ tokenId: 1, userId: 2, cost: 5, seq: 3, log: fullRow });
    expect(() => decodeSpoolLine(line.slice(0, 40))).toThrow();
  });
});

describe("spool lines handed to the write-behind thread", () => {
  test("joined lines read back as the records they were encoded from, in order, flags and numbers kept", () => {
    const first: UsageRecord = { tokenId: 9, userId: 7, cost: 1234, seq: 42, log: fullRow };
    const second: UsageRecord = { tokenId: 9, userId: 7, cost: 5, seq: 43, previousKey: true, log: { ...fullRow, requestId: "req_second" } };
    const records = usageRecordsOfText(encodeSpoolLine(first) + encodeSpoolLine(second));
    expect(records).toEqual([first, second]);
  });

  test("the period and budget subjects of a record's spend cross with it", () => {
    const subjects: LeaseSubject[] = ["token:9@1795651200000@daily@UTC", "budget:7@1793574000000@monthly@Europe/Paris"];
    const record: UsageRecord = { tokenId: 9, userId: 7, cost: 10, seq: 44, periodSubjects: subjects, log: fullRow };
    const [read] = usageRecordsOfText(encodeSpoolLine(record));
    expect(read!.periodSubjects).toEqual(subjects);
  });

  test("a record without a spool number crosses as number 0 and comes back without one", () => {
    const [record] = usageRecordsOfText(encodeSpoolLine({ tokenId: 1, userId: 2, cost: 3, seq: 0, log: fullRow }));
    expect(record!.seq).toBeUndefined();
    expect(record!.previousKey).toBeUndefined();
  });

  test("NOT NULL columns a record left out come back unset (the column default), not null", () => {
    const [record] = usageRecordsOfText(
      encodeSpoolLine({ tokenId: 1, userId: 2, cost: 0, seq: 1, log: { requestId: "req_min", endpoint: "embeddings", model: "m", status: 200, latencyMs: 3 } }),
    );
    for (const column of ["promptTokens", "completionTokens", "cachedTokens", "billedUnit", "cost"] as const) {
      expect(record!.log[column]).toBeUndefined();
    }
  });
});
